import Foundation
import Testing

@testable import NetworkIndicator

/// The sweep's two steps on the tree value (its middle, the completion checks, runs on the main
/// actor outside the lock), and a finish that finds no task.
extension IndicatorTreeTests {
    /// The sweep's first step carries the count of dead tokens up the tree without telling the
    /// node's schedule (its reconcile follows), but telling the ancestors'.
    @Test func theSweepCarriesDeadTokensUpTheTree() {
        var family = Family()
        var time = at(0)
        var token: Token? = Token()
        _ = family.tree.apply(.begin(.token(token!), label: nil, site: .none), in: family.child, time: &time)
        _ = family.tree.drainDirtyNodes(now: 0)
        token = nil
        let (found, needsHop) = family.tree.sweepRegistry(family.child, now: 1)
        #expect(found != nil)
        #expect(family.count(family.root) == 0)
        #expect(needsHop)
        #expect(
            family.tree.dirtyNodes == [family.root.index],
            "the swept node's own schedule waits for the sweep's end"
        )
        let (answer, _) = family.tree.finishSweep(family.child, completed: [], now: 1)
        #expect(answer?.node == family.child)
    }

    /// The sweep's last step ends a token that reported completion only if its key's entry is
    /// still the one the first step asked about: an entry another owner took under the key
    /// meanwhile stays open, and so does the token's own entry begun again after a finish. A rule
    /// of the tree value, whatever its callers do; no caller makes the first state today (every
    /// key is its own object's identifier, and the sweep holds the token across its steps).
    @Test func theSweepsLastStepLeavesAnEntryFilledSinceItAsked() {
        var family = Family()
        var time = at(0)
        let finished = Operation()
        let key = ObjectIdentifier(finished)
        _ = family.tree.apply(.begin(.token(finished), label: nil, site: .none), in: family.child, time: &time)
        let asked = family.tree.sweepRegistry(family.child, now: 1).0?.completionCandidates ?? []
        #expect(asked.map(\.tasks) == [1])
        // Between the sweep's steps (its middle reads `isFinished` outside the lock), the token's
        // task ends and another owner begins under the same key (a key no real owner would use).
        _ = family.tree.apply(.finish(.key(key)), in: family.child, time: &time)
        let other = Work()
        _ = family.tree.apply(
            .begin(.keyed(key, object: other, kind: .load), label: nil, site: .none),
            in: family.child,
            time: &time
        )
        _ = family.tree.finishSweep(family.child, completed: asked, now: 1)
        #expect(family.count(family.child) == 1)
        #expect(family.count(family.root) == 1)
        // The other owner's task ends and the token is begun again: a new run, which the next
        // sweep asks about, not the last one.
        _ = family.tree.apply(.finish(.key(key)), in: family.child, time: &time)
        _ = family.tree.apply(.begin(.token(finished), label: nil, site: .none), in: family.child, time: &time)
        _ = family.tree.finishSweep(family.child, completed: asked, now: 2)
        #expect(family.count(family.child) == 1)
        let askedAgain = family.tree.sweepRegistry(family.child, now: 3).0?.completionCandidates ?? []
        _ = family.tree.finishSweep(family.child, completed: askedAgain, now: 3)
        #expect(family.count(family.child) == 0)
    }

    /// A finish that finds no task of its key lets go of the key's held work (work that stopped
    /// counting, or that a reset left held) in its own event: a stop of counting on another
    /// thread cannot land between the two and be let go with it.
    @Test func aFinishThatFindsNoTaskLetsItsHeldWorkGoInItsOwnEvent() {
        var family = Family()
        var time = at(0)
        var kept: [AnyObject]?
        let work = Work()
        let key = ObjectIdentifier(work)
        _ = family.tree.apply(
            .begin(.keyed(key, object: work, kind: .group), label: nil, site: .none),
            in: family.child,
            time: &time
        )
        _ = family.tree.apply(.stopCounting(key, object: work), in: family.child, time: &time, keepingAlive: &kept)
        #expect(family.tree[family.child].registry.uncountedWork[key] != nil)
        #expect(family.tree.apply(.finish(.key(key)), in: family.child, time: &time).0 == .stale)
        #expect(family.tree[family.child].registry.uncountedWork[key] == nil)
    }

    /// Begun again after the first step asked, without a finish: the last step ends only the
    /// tasks the token had when asked, and the new one stays open.
    @Test func theSweepsLastStepEndsOnlyTheTasksItAskedAbout() {
        var family = Family()
        var time = at(0)
        let token = Operation()
        _ = family.tree.apply(.begin(.token(token), label: nil, site: .none), in: family.child, time: &time)
        let asked = family.tree.sweepRegistry(family.child, now: 1).0?.completionCandidates ?? []
        _ = family.tree.apply(.begin(.token(token), label: nil, site: .none), in: family.child, time: &time)
        _ = family.tree.finishSweep(family.child, completed: asked, now: 1)
        #expect(family.count(family.child) == 1)
        #expect(family.count(family.root) == 1)
    }
}
