import Foundation
import Testing

@testable import NetworkIndicator

/// The tree of a root manager and its scopes as a pure value: each event driven directly, no
/// lock, no thread, no scheduler.
@Suite("Indicator tree")
struct IndicatorTreeTests {
    private final class Token {}

    /// A root with a child and a grandchild, and a second child (a sibling).
    private struct Family {
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        let root = IndicatorTree.rootID
        let child: IndicatorTree.NodeID
        let grandchild: IndicatorTree.NodeID
        let sibling: IndicatorTree.NodeID

        init() {
            child = tree.addNode(
                childOf: IndicatorTree.rootID,
                label: "child",
                diagnosticsHandler: IndicatorTree.silent
            )
            grandchild = tree.addNode(childOf: child, label: "grandchild", diagnosticsHandler: IndicatorTree.silent)
            sibling = tree.addNode(
                childOf: IndicatorTree.rootID,
                label: "sibling",
                diagnosticsHandler: IndicatorTree.silent
            )
        }

        func count(_ id: IndicatorTree.NodeID) -> Int { tree[id].activeTaskCount }
    }

    private func at(_ now: TimeInterval) -> EventTime { EventTime(preread: now) }

    @Test func aTaskInAGrandchildCountsInEveryAncestorAndNotInASibling() {
        var family = Family()
        var time = at(5)
        _ = family.tree.push(in: family.grandchild, time: &time)
        #expect(family.count(family.grandchild) == 1)
        #expect(family.count(family.child) == 1)
        #expect(family.count(family.root) == 1)
        #expect(family.count(family.sibling) == 0)
        #expect(family.tree[family.child].descendantTaskCount == 1)
        #expect(family.tree[family.child].registry.activeTaskCount == 0)
        let (popped, _) = family.tree.pop(in: family.grandchild, time: &time)
        #expect(popped)
        #expect([family.grandchild, family.child, family.root].allSatisfy { family.count($0) == 0 })
    }

    /// Each machine the roll-up reaches asks for its own hop: the event's node, then its
    /// ancestors, in the order of the loop up the parent indices.
    @Test func theRollUpAsksEachAncestorsMachineForAHop() {
        var family = Family()
        var time = at(0)
        let hops = family.tree.push(in: family.grandchild, time: &time)
        #expect(hops.ownNode)
        #expect(hops.others == [family.child.index, family.root.index])
        // A hop is pending in every machine now: the next change asks for none.
        let again = family.tree.push(in: family.grandchild, time: &time)
        #expect(again == IndicatorTree.Hops())
    }

    @Test func aRootsEventAsksNoOtherNode() {
        var family = Family()
        var time = at(0)
        let hops = family.tree.push(in: family.root, time: &time)
        #expect(hops.ownNode)
        #expect(hops.others == nil)
    }

    /// Leaving zero starts a busy period in the node and in each ancestor that left zero with
    /// it, at the event's time for a scope (a parent's snapshot shows it).
    @Test func leavingZeroStartsABusyPeriodUpTheTree() {
        var family = Family()
        var time = at(7)
        _ = family.tree.push(in: family.root, time: &time)
        var later = at(9)
        _ = family.tree.push(in: family.grandchild, time: &later)
        #expect(family.tree[family.grandchild].busyPeriod == 1)
        #expect(family.tree[family.child].busyPeriod == 1)
        #expect(family.tree[family.root].busyPeriod == 1, "the root was busy already")
        #expect(family.tree[family.child].activeSince == 9)
        _ = family.tree.pop(in: family.grandchild, time: &later)
        _ = family.tree.push(in: family.grandchild, time: &later)
        #expect(family.tree[family.child].busyPeriod == 2)
    }

    /// A reset of a subtree ends every task in it at once; the ancestors lose them and a
    /// sibling keeps its own.
    @Test func aResetOfASubtreeEndsItAllAndLeavesTheRestAlone() {
        var family = Family()
        var time = at(0)
        let token = Token()
        _ = family.tree.beginToken(token, label: nil, in: family.child, time: &time)
        _ = family.tree.push(in: family.grandchild, time: &time)
        _ = family.tree.push(in: family.sibling, time: &time)
        _ = family.tree.push(in: family.root, time: &time)
        #expect(family.count(family.root) == 4)
        _ = family.tree.resetSubtree(of: family.child, time: &time)
        #expect(family.count(family.grandchild) == 0)
        #expect(family.count(family.child) == 0)
        #expect(family.count(family.sibling) == 1)
        #expect(family.count(family.root) == 2)
        _ = family.tree.resetSubtree(of: family.root, time: &time)
        #expect([family.root, family.child, family.grandchild, family.sibling].allSatisfy { family.count($0) == 0 })
    }

    /// A subtree's reset asks the hops of every node whose count moved.
    @Test func aResetOfASubtreeAsksEveryChangedNodeForAHop() {
        var family = Family()
        var time = at(0)
        _ = family.tree.push(in: family.grandchild, time: &time)
        _ = family.tree.push(in: family.sibling, time: &time)
        // Let every pending hop run, so that each machine may ask again.
        for id in [family.root, family.child, family.grandchild, family.sibling] {
            _ = family.tree.reconcile(id, now: 0)
        }
        let hops = family.tree.resetSubtree(of: family.root, time: &time)
        let asked = Set((hops.others ?? []) + (hops.ownNode ? [family.root.index] : []))
        #expect(asked == [family.root.index, family.child.index, family.grandchild.index, family.sibling.index])
    }

    /// A snapshot of a node: its own entries, one record per child with tasks, and its count,
    /// from one moment: the records' tasks add up to the count.
    @Test func aSnapshotHoldsTheNodesEntriesAndOneRecordPerBusyChild() {
        var family = Family()
        var time = at(3)
        _ = family.tree.push(in: family.root, time: &time)
        _ = family.tree.push(in: family.grandchild, time: &time)
        _ = family.tree.push(in: family.grandchild, time: &time)
        var kept: [AnyObject] = []
        let (records, count) = family.tree.snapshot(of: family.root, keepingAlive: &kept)
        #expect(count == 3)
        #expect(records.map(\.taskCount).reduce(0, +) == count)
        #expect(records.map(\.label).sorted() == ["child", "pushNetworkActivity()"])
        let child = records.first { $0.kind == .childManager }
        #expect(child?.startedAt == 3)
    }

    /// A removed node's tasks end in every ancestor; its id finds nothing afterwards, even once
    /// its index is reused by a new node.
    @Test func aRemovedNodesTasksEndAndItsIdGoesStale() {
        var family = Family()
        var time = at(0)
        _ = family.tree.push(in: family.sibling, time: &time)
        _ = family.tree.push(in: family.sibling, time: &time)
        _ = family.tree.reconcile(family.root, now: 0)
        let removal = family.tree.removeNode(family.sibling, time: &time)
        #expect(removal.hops.others == [family.root.index])
        #expect(family.count(family.root) == 0)
        #expect(!family.tree.contains(family.sibling))
        #expect(family.tree[family.root].children == [family.child.index])
        let reused = family.tree.addNode(childOf: family.root, label: nil, diagnosticsHandler: IndicatorTree.silent)
        #expect(reused.index == family.sibling.index)
        #expect(reused.generation != family.sibling.generation)
        // The stale id changes nothing, and reads as gone.
        let hops = family.tree.push(in: family.sibling, time: &time)
        #expect(hops == IndicatorTree.Hops())
        #expect(family.count(reused) == 0)
        #expect(family.count(family.root) == 0)
        let (popped, _) = family.tree.pop(in: family.sibling, time: &time)
        #expect(!popped)
        #expect(family.tree.read(family.sibling, ifGone: -1) { $0.activeTaskCount } == -1)
    }

    @Test func aRemovedRootFindsNothing() {
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        var time = at(0)
        _ = tree.push(in: IndicatorTree.rootID, time: &time)
        _ = tree.removeNode(IndicatorTree.rootID, time: &time)
        #expect(!tree.contains(IndicatorTree.rootID))
        #expect(tree.push(in: IndicatorTree.rootID, time: &time) == IndicatorTree.Hops())
        #expect(tree.reconcile(IndicatorTree.rootID, now: 0) == nil)
    }

    /// The sweep's first step carries the count of dead tokens up the tree without telling the
    /// node's machine (its reconcile follows), but telling the ancestors'.
    @Test func theSweepCarriesDeadTokensUpTheTree() {
        var family = Family()
        var time = at(0)
        var token: Token? = Token()
        _ = family.tree.beginToken(token!, label: nil, in: family.child, time: &time)
        for id in [family.root, family.child] { _ = family.tree.reconcile(id, now: 0) }
        token = nil
        let (found, hops) = family.tree.sweepRegistry(family.child, now: 1)
        #expect(found != nil)
        #expect(family.count(family.root) == 0)
        #expect(!hops.ownNode)
        #expect(hops.others == [family.root.index])
        let (delivery, _) = family.tree.finishSweep(family.child, completed: [], now: 1)
        #expect(delivery != nil)
    }
}
