import Testing

@testable import NetworkIndicator

/// The tree's deadlines against the obvious model: one list, scanned whole at every arming (what
/// ``TreeDeadlines`` was before its heaps). Thousands of seeded random changes over many nodes,
/// with calls whose targets die, must arm the same timer and make the same deadlines due.
@Suite("The tree's deadlines, against a flat list")
struct TreeDeadlinesModelTests {
    /// A call's target, which a run lets die.
    private final class Target: DeadlineTarget {
        func deadlineFired(generation: UInt64) {}
    }

    /// The model: every deadline in one list, in the order listed.
    private struct FlatDeadlines {
        struct Listed {
            let node: IndicatorTree.NodeID
            let kind: OutputSchedule.TimerKind
            var due: Double
            let interval: Double?
            let leeway: Double
            weak var target: Target?
        }
        var pending: [Listed] = []
        var armed: (due: Double, interval: Double?, leeway: Double)?

        mutating func list(
            _ kind: OutputSchedule.TimerKind,
            _ node: IndicatorTree.NodeID,
            after delay: Double,
            repeating interval: Double?,
            target: Target?,
            now: Double
        ) {
            let leeway = TreeDeadlines.leeway(delay: delay, repeating: interval)
            pending.append(Listed(node: node, kind: kind, due: now + max(delay, 0), interval: interval, leeway: leeway))
            pending[pending.count - 1].target = target
        }

        /// The earliest live deadline, and the least leeway any allows; `nil` if none is listed.
        mutating func arming() -> (due: Double, interval: Double?, leeway: Double)? {
            pending.removeAll { $0.kind == .call && $0.target == nil }
            guard let first = pending.min(by: { $0.due < $1.due }) else { return nil }
            let leeway = pending.map { ($0.due - first.due) + $0.leeway }.min()!
            return (first.due, first.interval, leeway)
        }

        mutating func fired(now: Double) -> [Listed] {
            let due = pending.filter { $0.due <= now + VisibilityPolicy.tolerance }
            pending.removeAll { $0.due <= now + VisibilityPolicy.tolerance }
            for var next in due {
                guard let interval = next.interval, next.kind != .call || next.target != nil else { continue }
                next.due = next.due + interval > now ? next.due + interval : now + interval
                pending.append(next)
            }
            return due
        }
    }

    /// A screen that shows and hides all day replaces its delay timer at every edge: what the
    /// deadlines keep stays in proportion to what is listed, not to how often it changed.
    /// After `firings` one-shot deadlines fired first: those leave the count as they fire.
    @Test(arguments: [0, 1_000])
    func replacedDeadlinesLeaveNothingBehind(firings: Int) {
        var deadlines = TreeDeadlines()
        let nodes = (0..<50).map { IndicatorTree.NodeID(index: Int32($0), generation: 0) }
        for _ in 0..<firings {
            deadlines.apply([.delay: .start(after: 0)], of: IndicatorTree.NodeID(index: 98, generation: 0), now: 0)
            if case .start(_, _, _, let generation)? = deadlines.rearm(now: 0) {
                #expect(deadlines.fired(generation, now: 0)?.due.count == 1)
            }
        }
        #expect(deadlines.pending.isEmpty)
        // Due first, for good: what the others leave sits under it, never at the top.
        deadlines.apply([.delay: .start(after: 0)], of: IndicatorTree.NodeID(index: 99, generation: 0), now: 0)
        for round in 0..<2_000 {
            let node = nodes[round % nodes.count]
            deadlines.apply([.delay: .start(after: 0.5), .sweep: .start(after: 1)], of: node, now: Double(round))
            let listed = deadlines.pending.count
            #expect(deadlines.heapEntryCount <= 4 * listed + 66, "round \(round): \(listed) listed")
            if round % 3 == 0 { deadlines.apply([.delay: .cancel], of: node, now: Double(round)) }
            _ = deadlines.rearm(now: Double(round))
        }
    }

    @Test(arguments: [1, 2, 3, 4])
    func manyNodesArmAndFireAsOneList(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var deadlines = TreeDeadlines()
        var model = FlatDeadlines()
        // Two generations of each index: a removed node's deadlines are its own, not its index's.
        let nodes = (0..<40).map { IndicatorTree.NodeID(index: Int32($0 / 2), generation: UInt32($0 % 2)) }
        var targets: [Target] = (0..<8).map { _ in Target() }
        let delays: [Double] = [0, 0.125, 0.25, 0.5, 1, 2]
        var now = 0.0
        for step in 0..<3_000 {
            let node = nodes.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                let kind: OutputSchedule.TimerKind = Bool.random(using: &random) ? .delay : .sweep
                let delay = delays.randomElement(using: &random)!
                let change: VisibilityPolicy.TimerAction =
                    Int.random(in: 0..<3, using: &random) == 0 ? .cancel : .start(after: delay)
                deadlines.apply([kind: change], of: node, now: now)
                model.pending.removeAll { $0.node == node && $0.kind == kind }
                if case .start = change {
                    model.list(kind, node, after: delay, repeating: kind == .sweep ? delay : nil, target: nil, now: now)
                }
            case 4..<6:
                let target = targets.randomElement(using: &random)!
                let delay = Bool.random(using: &random) ? delays.randomElement(using: &random)! : nil
                let interval = Bool.random(using: &random) ? 0.25 : nil
                deadlines.call(target, after: delay, repeating: interval, of: node, now: now)
                model.pending.removeAll { $0.node == node && $0.target === target }
                if let delay { model.list(.call, node, after: delay, repeating: interval, target: target, now: now) }
            case 6:
                targets[Int.random(in: 0..<targets.count, using: &random)] = Target()  // one dies
            case 7:
                deadlines.removeAll(of: node)
                model.pending.removeAll { $0.node == node }
            default:
                now += 0.125
                let firing = deadlines.fired(deadlines.generation, now: now)
                let modelDue = model.armed.map { _ in model.fired(now: now) }
                if let armed = model.armed { model.armed = armed.interval.map { (armed.due + $0, $0, armed.leeway) } }
                #expect((firing == nil) == (modelDue == nil), "step \(step)")
                // A call whose target died fires into nothing, whenever the lists let it go.
                let fired = (firing?.due ?? []).filter { $0.kind != .call || $0.target != nil }
                let modelFired = (modelDue ?? []).filter { $0.kind != .call || $0.target != nil }
                #expect(
                    fired.map { "\($0.node.index) \($0.kind) \($0.due)" }.sorted()
                        == modelFired.map { "\($0.node.index) \($0.kind) \($0.due)" }.sorted(),
                    "step \(step)"
                )
            }
            let arming = deadlines.rearm(now: now)
            let expected = model.arming()
            if let expected,
                model.armed.map({
                    $0.due != expected.due || $0.interval != expected.interval
                        || abs($0.leeway - expected.leeway) > 1e-9
                }) ?? true
            {
                model.armed = expected
                guard case .start(let after, let interval, let leeway, _) = arming else {
                    Issue.record("step \(step): expected an arming for \(expected), got \(String(describing: arming))")
                    return
                }
                #expect(abs(after - (expected.due - now)) < 1e-9 && interval == expected.interval, "step \(step)")
                #expect(abs(leeway - expected.leeway) < 1e-9, "step \(step)")
            } else if expected == nil, model.armed != nil {
                model.armed = nil
                #expect(arming == .stop, "step \(step)")
            } else {
                #expect(arming == nil, "step \(step)")
            }
            // A call whose target died leaves the model at once, and the deadlines when it comes up.
            let live = deadlines.pending.filter { $0.kind != .call || $0.target != nil }
            #expect(live.count == model.pending.count, "step \(step)")
        }
    }
}
