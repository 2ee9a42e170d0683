import Testing

@testable import NetworkIndicator

/// A node's children as a value: scopes added and removed at random under two parents (a server's
/// requests come and go in any order) are listed in the order they were added, as an array keeps
/// them, whichever index each reuses.
@Suite("A node's children, against an array")
struct IndicatorTreeChildrenTests {
    @Test(arguments: [1, 2, 3])
    func childrenAreListedInTheOrderTheyWereAdded(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        let parents = [IndicatorTree.rootID, tree.addNode(childOf: IndicatorTree.rootID, label: "parent")]
        var model: [[IndicatorTree.NodeID]] = [[parents[1]], []]
        for step in 0..<2_000 {
            let side = Int.random(in: 0..<2, using: &random)
            // The second parent is never removed: its children would go first.
            let leaving = model[side].indices.filter { model[side][$0] != parents[1] }
            if leaving.isEmpty || Bool.random(using: &random) {
                model[side].append(tree.addNode(childOf: parents[side], label: nil))
            } else {
                var time = EventTime(preread: 0)
                let removed = model[side].remove(at: leaving.randomElement(using: &random)!)
                _ = tree.removeNode(removed, time: &time)
            }
            for parent in 0..<2 {
                #expect(tree.children(ofNodeAt: parents[parent].index) == model[parent].map(\.index), "step \(step)")
            }
        }
    }
}
