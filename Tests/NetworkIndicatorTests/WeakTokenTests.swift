import Foundation
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Weak tokens and the sweep")
struct WeakTokenTests {
    @Test func managerNeverRetainsToken() {
        let harness = Harness()
        var token: Token? = Token()
        let weakToken = WeakReference(token)
        harness.manager.beganNetworkTask(withToken: token!)
        harness.manager.beganNetworkTask(withToken: token!, label: "again")
        harness.settle()
        token = nil
        #expect(weakToken.object == nil)
    }

    /// The pair is generic over the token's class (so that a caller's object is passed as it is,
    /// not boxed as `AnyObject` first); the task is the object's whatever static type names it.
    @Test func aTokenIsTheSameTaskWhateverTypeTheCallerSeesItAs() {
        let harness = Harness()
        let token = ProtocolBoundToken()
        let asAnyObject: AnyObject = token
        let asProtocol: any ClassBoundToken = token
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.beganNetworkTask(withToken: asProtocol)
        #expect(harness.manager.activeTaskCount == 2)
        #expect(harness.manager.activitySnapshot().activities.map(\.taskCount) == [2], "one token, two tasks")
        let finish: (AnyObject) -> Void = harness.manager.finishedNetworkTask(forToken:)
        finish(asAnyObject)
        harness.manager.finishedNetworkTask(forToken: asProtocol)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds.isEmpty, "each finish found its task")
    }

    /// A token that only `AnyObject` names (two unrelated classes behind one expression) takes
    /// the pair's `AnyObject` form, as does a class-bound protocol's existential in the Swift 5
    /// language mode, where the generic form cannot open it.
    @Test func aTokenTypedOnlyAsAnyObjectStillBeginsAndFinishes() {
        let harness = Harness()
        let first = Token()
        let second = ProtocolBoundToken()
        for useFirst in [true, false] {
            harness.manager.beganNetworkTask(withToken: useFirst ? first : second, label: "either")
        }
        #expect(harness.manager.activitySnapshot().activities.map(\.label).sorted() == ["either", "either"])
        for useFirst in [true, false] { harness.manager.finishedNetworkTask(forToken: useFirst ? first : second) }
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds.isEmpty)
    }

    @Test func deadTokenEndsItsTaskAtTheNextSweep() {
        let harness = Harness()
        var token: Token? = Token()
        harness.manager.beganNetworkTask(withToken: token!)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])

        token = nil
        #expect(harness.manager.activeTaskCount == 1, "weak tokens end at the sweep, not at once")
        harness.advance(by: 0.999)
        #expect(harness.manager.activeTaskCount == 1)
        harness.advance(by: 0.001)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.visibilityChanges == [false, true, false])
    }

    @Test func sweepRunsOnlyWhileWeakTokensAreTracked() {
        let harness = Harness()
        #expect(harness.scheduler.pendingWorkCount == 0)

        var token: Token? = Token()
        harness.manager.beganNetworkTask(withToken: token!)
        harness.settle()
        #expect(harness.scheduler.scheduledTimerCount == 1)
        #expect(harness.scheduler.pendingWorkCount == 1, "the repeating sweep")

        harness.advance(by: 3)
        #expect(harness.scheduler.executedWorkCount >= 3)
        #expect(harness.scheduler.scheduledTimerCount == 1, "one repeating timer, not one per sweep")

        token = nil
        harness.advance(by: 1)
        #expect(harness.scheduler.pendingWorkCount == 0, "the sweep stops when no token is left")

        let second = Token()
        harness.manager.beganNetworkTask(withToken: second)
        harness.settle()
        #expect(harness.scheduler.scheduledTimerCount == 2, "and restarts on the next begin")
        harness.manager.finishedNetworkTask(forToken: second)
        harness.settle()
        #expect(harness.scheduler.pendingWorkCount == 0, "an explicit finish of the last token stops it too")
    }

    @Test func changingTheIntervalRestartsTheSweep() {
        let harness = Harness()
        var token: Token? = Token()
        harness.manager.beganNetworkTask(withToken: token!)
        harness.settle()
        harness.manager.settings.completionCheckInterval = 5
        harness.settle()
        #expect(harness.scheduler.scheduledTimerCount == 2)
        #expect(harness.scheduler.pendingWorkCount == 1)
        token = nil
        harness.advance(by: 4.9)
        #expect(harness.manager.activeTaskCount == 1)
        harness.advance(by: 0.1)
        #expect(harness.manager.activeTaskCount == 0)
    }

    @Test func sameTokenTwiceIsTwoTasksAndDeathEndsBoth() {
        let harness = Harness()
        var token: Token? = Token()
        harness.manager.beganNetworkTask(withToken: token!)
        harness.manager.beganNetworkTask(withToken: token!)
        #expect(harness.manager.activeTaskCount == 2)
        harness.manager.finishedNetworkTask(forToken: token!)
        #expect(harness.manager.activeTaskCount == 1)
        token = nil
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func explicitFinishEndsTaskWithoutWaitingForSweep() {
        let harness = Harness()
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token)
        harness.settle()
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activeTaskCount == 0)
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
    }

    @Test func unknownFinishIsIgnoredReportedAndAbsorbsNothing() {
        let harness = Harness()
        let token = Token()
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
        #expect(harness.diagnostics.all.first?.label == "Token")

        harness.manager.beganNetworkTask(withToken: token)
        #expect(harness.manager.activeTaskCount == 1, "a later begin is not absorbed")
        harness.manager.finishedNetworkTask(forToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.unknownFinish, .unknownFinish])
    }

    @Test func deadTokensMemoryReusedByNewObjectIsANewTask() {
        let harness = Harness()
        var token: Token? = Token()
        let deadIdentity = ObjectIdentifier(token!)
        harness.manager.beganNetworkTask(withToken: token!)
        harness.manager.beganNetworkTask(withToken: token!)
        token = nil

        var keep: [Token] = []
        guard let reused = tokenReusingAddress(of: deadIdentity, keeping: &keep) else { return noteNoAddressReuse() }
        harness.manager.beganNetworkTask(withToken: reused)
        #expect(harness.manager.activeTaskCount == 1, "the dead token's two tasks ended; the new one began")
        harness.manager.finishedNetworkTask(forToken: reused)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func labelsDefaultToTheTokensType() {
        let harness = Harness()
        let token = Token()
        let operation = BlockOperation()
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.beganNetworkTask(withToken: operation, label: "thumbnails")
        let labels = Set(harness.manager.activitySnapshot().activities.map(\.label))
        #expect(labels == ["Token", "thumbnails"])
    }
}

private protocol ClassBoundToken: AnyObject {}
private final class ProtocolBoundToken: ClassBoundToken {}
