import Foundation
import Testing

@testable import NetworkIndicator

/// Task events in the tree as a pure value: what the tree's hop takes, whatever runs between the
/// event and the hop. No lock, no thread, no scheduler.
@Suite("Task events in the tree")
struct TreeTaskEventTests {
    private final class Token {}

    private func at(_ now: TimeInterval) -> EventTime { EventTime(preread: now) }

    /// A tree whose root has one watching output, and a scope "Feed" below it.
    private func recordingTree() -> (tree: IndicatorTree, scope: IndicatorTree.NodeID) {
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        let scope = tree.addNode(childOf: IndicatorTree.rootID, label: "Feed")
        tree.taskEventListenersChanged(by: 1, in: IndicatorTree.rootID)
        return (tree, scope)
    }

    /// What the tree's hop takes: "began"/"ended", the scope path, and the age.
    private func hop(_ tree: inout IndicatorTree, now: TimeInterval) -> [String] {
        _ = tree.drainDirtyNodes(now: now)
        return tree.takeTaskEvents().events.map { item in
            switch item.event {
            case .began(_, _, let path): "began \(path)"
            case .ended(let activity, _, let path, let ending): "ended \(path) \(ending.rawValue) after \(activity.age)"
            }
        }
    }

    /// The hop runs later than the task's end (a busy main queue): the duration still runs to
    /// the end, not to the hop.
    @Test func anEndKeepsTheTimeItHappenedNotTheHops() {
        var (tree, _) = recordingTree()
        var time = at(1)
        _ = tree.apply(.begin(.counter, label: nil, site: .none), in: IndicatorTree.rootID, time: &time)
        time = at(3)
        _ = tree.apply(.pop, in: IndicatorTree.rootID, time: &time)
        #expect(hop(&tree, now: 10) == ["began []", "ended [] finished after 2.0"])
    }

    /// Events of different scopes reach the hop in the order they happened.
    @Test func eventsOfTwoScopesKeepTheirOrderInOneHop() {
        var (tree, scope) = recordingTree()
        var time = at(0)
        _ = tree.apply(.begin(.counter, label: nil, site: .none), in: IndicatorTree.rootID, time: &time)
        _ = tree.apply(.begin(.counter, label: nil, site: .none), in: scope, time: &time)
        _ = tree.apply(.pop, in: IndicatorTree.rootID, time: &time)
        _ = tree.apply(.pop, in: scope, time: &time)
        #expect(
            hop(&tree, now: 0) == [
                "began []", "began [\"Feed\"]", "ended [] finished after 0.0", "ended [\"Feed\"] finished after 0.0",
            ]
        )
    }

    /// A begin that finds its key's entry owned by a dead token ends that entry and begins anew:
    /// the count does not move, yet the two events ask for the tree's hop.
    @Test func aBeginOverADeadTokensEntryAsksForTheHop() {
        var (tree, _) = recordingTree()
        var time = at(0)
        var dead: Token? = Token()
        let key = ObjectIdentifier(dead!)
        _ = tree.apply(
            .begin(.keyed(key, object: dead, kind: .token), label: nil, site: .none),
            in: IndicatorTree.rootID,
            time: &time
        )
        #expect(hop(&tree, now: 0) == ["began []"])
        dead = nil
        let live = Token()
        time = at(4)
        let (outcome, needsHop) = tree.apply(
            .begin(.keyed(key, object: live, kind: .token), label: nil, site: .none),
            in: IndicatorTree.rootID,
            time: &time
        )
        #expect(outcome == .applied)
        #expect(tree[IndicatorTree.rootID].activeTaskCount == 1, "one task before and after")
        #expect(needsHop, "the events need the hop")
        #expect(hop(&tree, now: 4) == ["ended [] swept after 4.0", "began []"])
        _ = dead
    }

    /// A removed scope's last events still reach the outputs of its ancestors.
    @Test func aRemovedScopesEndsReachItsAncestorsAtTheNextHop() {
        var (tree, scope) = recordingTree()
        var time = at(0)
        _ = tree.apply(.begin(.counter, label: nil, site: .none), in: scope, time: &time)
        #expect(hop(&tree, now: 0) == ["began [\"Feed\"]"])
        time = at(1)
        let needsHop = tree.removeNode(scope, time: &time).needsHop
        #expect(needsHop)
        _ = tree.drainDirtyNodes(now: 1)
        let taken = tree.takeTaskEvents().events
        #expect(taken.count == 1)
        #expect(taken.allSatisfy { $0.hearers.contains(IndicatorTree.rootID) })
        guard case .ended(_, _, let path, .managerGone) = taken.last?.event else {
            Issue.record("expected the scope's end, got \(taken)")
            return
        }
        #expect(path == ["Feed"])
    }
}
