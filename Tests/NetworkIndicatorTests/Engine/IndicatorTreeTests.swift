import Foundation
import Testing

@testable import NetworkIndicator

/// The tree of a root manager and its scopes as a pure value: each event driven directly, no
/// lock, no thread, no scheduler.
@Suite("Indicator tree")
struct IndicatorTreeTests {
    final class Token {}
    final class Work: NetworkActivityCancellable, Sendable {
        func cancel() {}
    }

    /// A root with a child and a grandchild, and a second child (a sibling).
    struct Family {
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        let root = IndicatorTree.rootID
        let child: IndicatorTree.NodeID
        let grandchild: IndicatorTree.NodeID
        let sibling: IndicatorTree.NodeID

        init() {
            child = tree.addNode(childOf: IndicatorTree.rootID, label: "child")
            grandchild = tree.addNode(childOf: child, label: "grandchild")
            sibling = tree.addNode(childOf: IndicatorTree.rootID, label: "sibling")
        }

        func count(_ id: IndicatorTree.NodeID) -> Int { tree[id].activeTaskCount }
    }

    func at(_ now: TimeInterval) -> EventTime { EventTime(preread: now) }

    @Test func aTaskInAGrandchildCountsInEveryAncestorAndNotInASibling() {
        var family = Family()
        var time = at(5)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1
        #expect(family.count(family.grandchild) == 1)
        #expect(family.count(family.child) == 1)
        #expect(family.count(family.root) == 1)
        #expect(family.count(family.sibling) == 0)
        #expect(family.tree[family.child].descendantTaskCount == 1)
        #expect(family.tree[family.child].registry.activeTaskCount == 0)
        let popped = family.tree.apply(.pop, in: family.grandchild, time: &time).0 == .applied
        #expect(popped)
        #expect([family.grandchild, family.child, family.root].allSatisfy { family.count($0) == 0 })
    }

    /// Each schedule the roll-up reaches marks its node dirty: the event's node, then its
    /// ancestors, in the order of the loop up the parent indices; the tree asks for one hop.
    @Test func theRollUpMarksEachAncestorDirtyAndAsksOneHop() {
        var family = Family()
        var time = at(0)
        #expect(family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1)
        #expect(family.tree.dirtyNodes == [family.grandchild.index, family.child.index, family.root.index])
        // A hop is pending in every schedule now: the next change marks nothing and asks none.
        #expect(!family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1)
        #expect(family.tree.dirtyNodes.count == 3)
    }

    /// A second node asking while the tree's hop is pending joins the drain without a second hop.
    @Test func aSecondNodeJoinsThePendingHop() {
        var family = Family()
        var time = at(0)
        #expect(family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.root, time: &time).1)
        #expect(family.tree.dirtyNodes == [family.root.index])
        #expect(
            !family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1,
            "the tree's hop is pending already"
        )
        #expect(family.tree.dirtyNodes == [family.root.index, family.sibling.index])
        #expect(family.tree.drainDirtyNodes(now: 0).map(\.node) == [family.root, family.sibling])
        #expect(family.tree.dirtyNodes.isEmpty)
        #expect(family.tree.apply(.pop, in: family.sibling, time: &time).1, "drained: the next edge asks again")
    }

    /// The roll-up walks the parent indices to the root and stops there: from above the root
    /// (`-1`, the root's parent) it reaches nothing.
    @Test func theRollUpStopsAtTheRoot() {
        var family = Family()
        var time = at(0)
        #expect(!family.tree.rollUp(1, from: -1, time: &time))
        #expect(family.count(family.root) == 0)
        #expect(family.tree.rollUp(2, from: family.child.index, time: &time))
        #expect(family.count(family.child) == 2 && family.count(family.root) == 2)
        #expect(family.count(family.grandchild) == 0 && family.count(family.sibling) == 0)
    }

    /// Leaving zero is noted, at the event's time, in each scope that left zero with it (a
    /// parent's snapshot shows it); an ancestor busy already keeps its time.
    @Test func leavingZeroIsNotedUpTheTree() {
        var family = Family()
        var time = at(7)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.root, time: &time).1
        var later = at(9)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &later).1
        #expect(family.tree[family.grandchild].activeSince == 9)
        #expect(family.tree[family.child].activeSince == 9)
        _ = family.tree.apply(.pop, in: family.grandchild, time: &later)
        var again = at(11)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &again).1
        #expect(family.tree[family.child].activeSince == 11, "left zero again")
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &later).1
        #expect(family.tree[family.child].activeSince == 11, "busy already")
    }

    /// A reset of a subtree ends every task in it at once; the ancestors lose them and a
    /// sibling keeps its own.
    @Test func aResetOfASubtreeEndsItAllAndLeavesTheRestAlone() {
        var family = Family()
        var time = at(0)
        let token = Token()
        _ = family.tree.apply(.begin(.token(token), label: nil, site: .none), in: family.child, time: &time)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.root, time: &time).1
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
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1
        // Let the pending hop run, so that each schedule may ask again.
        _ = family.tree.drainDirtyNodes(now: 0)
        #expect(family.tree.resetSubtree(of: family.root, time: &time))
        #expect(
            Set(family.tree.dirtyNodes)
                == [family.root.index, family.child.index, family.grandchild.index, family.sibling.index]
        )
    }

    /// A cancel of a subtree ends the tasks it can cancel in every node and hands back every
    /// object it read: the work to cancel, and the tokens it cannot cancel, which the caller
    /// releases after the lock (so that no `deinit` runs under it).
    @Test func aCancelOfASubtreeHandsBackEveryObjectItRead() {
        var family = Family()
        var time = at(0)
        let work = Work()
        let token = Token()
        _ = family.tree.apply(.begin(.token(work), label: nil, site: .none), in: family.child, time: &time)
        _ = family.tree.apply(.begin(.token(token), label: nil, site: .none), in: family.grandchild, time: &time)
        let (cancellation, _) = family.tree.cancelSubtree(of: family.root, time: &time)
        #expect(cancellation.work.count == 1 && cancellation.work.first as? Work === work)
        #expect(cancellation.keptAlive.elementsEqual([token]) { $0 === $1 })
        #expect(family.count(family.child) == 1, "the token it cannot cancel keeps its task")
        #expect(family.count(family.root) == 1)
    }

    /// A snapshot of a node: its own entries, one record per child with tasks, and its count,
    /// from one moment: the records' tasks add up to the count.
    @Test func aSnapshotHoldsTheNodesEntriesAndOneRecordPerBusyChild() {
        var family = Family()
        var time = at(3)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.root, time: &time).1
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.grandchild, time: &time).1
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
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1
        _ = family.tree.drainDirtyNodes(now: 0)
        #expect(family.tree.removeNode(family.sibling, time: &time).needsHop)
        #expect(family.tree.dirtyNodes == [family.root.index])
        #expect(family.count(family.root) == 0)
        #expect(!family.tree.contains(family.sibling))
        #expect(family.tree.children(ofNodeAt: family.root.index) == [family.child.index])
        let reused = family.tree.addNode(childOf: family.root, label: nil)
        #expect(reused.index == family.sibling.index)
        #expect(family.tree.children(ofNodeAt: family.root.index) == [family.child.index, reused.index], "last")
        #expect(reused.generation != family.sibling.generation)
        // The stale id changes nothing, and reads as gone.
        #expect(!family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1)
        #expect(family.count(reused) == 0)
        #expect(family.count(family.root) == 0)
        let popped = family.tree.apply(.pop, in: family.sibling, time: &time).0 == .applied
        #expect(!popped)
        #expect(family.tree.activeTaskCount(of: family.sibling) == 0)
        let key = ObjectIdentifier(Token.self)
        #expect(family.tree.openTaskCount(.key(key), in: family.sibling) == 0, "a gone node measures nothing")
        #expect(family.tree.openTaskCount(.pinned(PinnedSlot(slot: 0, generation: 0)), in: family.sibling) == 0)
        #expect(family.tree.read(family.sibling) { $0.registry.groupCount(for: key) } == nil, "nor reads as a node")
        var keptAlive: [AnyObject] = []
        let snapshot = family.tree.snapshot(of: family.sibling, keepingAlive: &keptAlive)
        #expect(snapshot.records.isEmpty && snapshot.count == 0, "nor a snapshot")
        // A sweep of a node gone meanwhile finds nothing, answers nothing and asks for no hop.
        let (swept, sweepNeedsHop) = family.tree.sweepRegistry(family.sibling, now: 1)
        #expect(swept == nil && !sweepNeedsHop)
        let (answer, needsHop) = family.tree.finishSweep(family.sibling, completed: [], now: 1)
        #expect(answer == nil && !needsHop)
        // Nor does a reset or a cancel of it, a settings change or an attached output.
        let dirty = family.tree.dirtyNodes
        #expect(!family.tree.resetSubtree(of: family.sibling, time: &time))
        #expect(!family.tree.cancelSubtree(of: family.sibling, time: &time).1)
        #expect(!family.tree.changeSettings(of: family.sibling) { $0.startDelay = 5 })
        #expect(family.tree.read(reused) { $0.schedule.settings.startDelay } == NetworkIndicatorSettings().startDelay)
        let (count, attachNeedsHop) = family.tree.outputAttached(receivesCount: true, in: family.sibling)
        #expect(count == nil && !attachNeedsHop)
        #expect(family.tree.dirtyNodes == dirty)
    }

    /// A removed node's delay timer that fires late finds nothing, even when the node that took
    /// its index runs a delay timer.
    @Test func aGoneNodesLateDelayTimerIsNotTakenForItsSuccessors() {
        var family = Family()
        var time = at(0)
        _ = family.tree.removeNode(family.sibling, time: &time).needsHop
        let reused = family.tree.addNode(childOf: family.root, label: nil)
        _ = family.tree.changeSettings(of: reused) { $0.startDelay = 1 }
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: reused, time: &time).1
        let answers = family.tree.drainDirtyNodes(now: 0)
        let started = answers.first { $0.node == reused }?.reconciliation.timerChanges[.delay]
        #expect(started == .start(after: 1), "the successor's start delay starts its timer")
        #expect(family.tree.delayTimerFired(family.sibling, now: 1) == nil)
        #expect(family.tree.delayTimerFired(reused, now: 1) != nil, "its own fires")
    }

    /// A node removed while dirty gives no answer: its index holds a fresh node with no hop pending.
    @Test func aNodeRemovedWhileDirtyIsSkippedByTheDrain() {
        var family = Family()
        var time = at(0)
        _ = family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1
        #expect(family.tree.dirtyNodes == [family.sibling.index, family.root.index])
        _ = family.tree.removeNode(family.sibling, time: &time).needsHop
        #expect(family.tree.drainDirtyNodes(now: 0).map(\.node) == [family.root])
    }

    /// Every kind of task event goes through the one `apply`, and says what it did: an opaque
    /// token's pair, `.stale` for what names nothing open, each end carried up to the root.
    @Test func eachTaskEventSaysWhatItDid() {
        var family = Family()
        var time = at(1)
        let token = Token()
        let group = Token()
        #expect(
            family.tree.apply(.begin(.token(token), label: "feed", site: .none), in: family.child, time: &time).0
                == .applied
        )
        let (pinnedOutcome, _) = family.tree.apply(
            .begin(.newOpaqueToken, label: nil, site: .none),
            in: family.child,
            time: &time
        )
        guard case .pinned(let pinned) = pinnedOutcome else {
            Issue.record("a new opaque token gets a pinned slot, got \(pinnedOutcome)")
            return
        }
        let groupEvent = TaskEvent.begin(
            .keyed(ObjectIdentifier(group), object: group, kind: .group),
            label: nil,
            site: .none
        )
        #expect(family.tree.apply(groupEvent, in: family.child, time: &time).0 == .applied)
        #expect(
            family.tree.apply(.begin(.opaqueToken(pinned), label: nil, site: .none), in: family.child, time: &time).0
                == .applied
        )
        #expect(
            family.tree.apply(.begin(.counter, label: nil, site: .none), in: family.child, time: &time).0 == .applied
        )
        #expect(family.count(family.root) == 5)

        #expect(family.tree.apply(.finish(.key(ObjectIdentifier(token))), in: family.child, time: &time).0 == .applied)
        #expect(family.tree.apply(.finish(.key(ObjectIdentifier(token))), in: family.child, time: &time).0 == .stale)
        #expect(family.tree.apply(.release(pinned), in: family.child, time: &time).0 == .applied)
        #expect(
            family.tree.apply(.begin(.opaqueToken(pinned), label: nil, site: .none), in: family.child, time: &time).0
                == .stale,
            "released: the pair is stale"
        )
        #expect(family.tree.apply(.finishAll(ObjectIdentifier(group)), in: family.child, time: &time).0 == .applied)
        #expect(family.tree.apply(.pop, in: family.child, time: &time).0 == .applied)
        #expect(family.tree.apply(.pop, in: family.child, time: &time).0 == .stale, "no push open")
        #expect(family.count(family.root) == 0)
        #expect(family.count(family.child) == 0)
    }

    /// An id the tree never issued (another tree's scope) names nothing in it, and changes nothing.
    @Test func anotherTreesIdFindsNothing() {
        let family = Family()
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        var time = at(0)
        #expect(!tree.contains(family.sibling))
        #expect(!tree.apply(.begin(.counter, label: nil, site: .none), in: family.sibling, time: &time).1)
        #expect(tree.activeTaskCount(of: IndicatorTree.rootID) == 0)
    }

    /// Nor does another tree's id whose generation is ahead of this tree's node at that index:
    /// only the node's own generation names it.
    @Test func anIdAheadOfTheNodesGenerationFindsNothing() {
        var other = Family()
        var time = at(0)
        _ = other.tree.removeNode(other.sibling, time: &time).needsHop
        let ahead = other.tree.addNode(childOf: other.root, label: nil)
        let family = Family()
        #expect(ahead.index == family.sibling.index && ahead.generation > family.sibling.generation)
        var tree = family.tree
        #expect(!tree.contains(ahead))
        #expect(!tree.apply(.begin(.counter, label: nil, site: .none), in: ahead, time: &time).1)
        #expect(tree[family.sibling].activeTaskCount == 0)
    }

    @Test func aRemovedRootFindsNothing() {
        var tree = IndicatorTree(diagnosticsHandler: IndicatorTree.silent)
        var time = at(0)
        _ = tree.apply(.begin(.counter, label: nil, site: .none), in: IndicatorTree.rootID, time: &time).1
        _ = tree.removeNode(IndicatorTree.rootID, time: &time).needsHop
        #expect(!tree.contains(IndicatorTree.rootID))
        let dirty = tree.dirtyNodes
        #expect(!tree.apply(.begin(.counter, label: nil, site: .none), in: IndicatorTree.rootID, time: &time).1)
        #expect(tree.dirtyNodes == dirty)
        #expect(tree.delayTimerFired(IndicatorTree.rootID, now: 0) == nil)
    }
}
