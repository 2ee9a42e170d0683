import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// A reset (a sign-out) ends every task, not the work: the screen's cancel that follows still
/// stops the screen's work, as it does work that stopped counting. Public API only.
@MainActor
@Suite("A cancel after a reset")
struct CancelAfterResetTests {
    private let root = NetworkIndicatorManager(
        scheduler: ManualNetworkIndicatorScheduler(),
        diagnosticsHandler: ignoreDiagnostics
    )

    @Test func aScreensCancelStillStopsItsFeed() async {
        let screen = NetworkIndicatorManager(parent: root, label: "Feed")
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var feed = stream.trackingNetworkActivity(in: screen).makeAsyncIterator()
        continuation.yield(1)
        #expect(await feed.next() == 1)
        root.resetNetworkActivity()
        #expect(root.activeTaskCount == 0, "the reset ended the feed's task")
        screen.cancelNetworkTasks()
        continuation.yield(2)
        #expect(await feed.next() == nil, "the screen's cancel stops its feed's loop")
        continuation.finish()
    }

    @Test(arguments: [true, false])
    func aCancelReachesACancellableTokenOnce(fromTheScreen: Bool) {
        let screen = NetworkIndicatorManager(parent: root, label: "Images")
        let load = CancelTests.Work()
        screen.beganNetworkTask(withToken: load)
        screen.resetNetworkActivity()
        (fromTheScreen ? screen : root).cancelNetworkTasks()
        #expect(load.cancelCount == 1, "the reset did not stop the load; the cancel does")
        screen.cancelNetworkTasks()
        #expect(load.cancelCount == 1, "once")
        #expect(screen.activeTaskCount == 0)
        withExtendedLifetime(load) {}
    }

    @Test func aGroupIsToldOnceAndItsLateFinishIsStillReported() {
        let diagnostics = DiagnosticsRecorder()
        let manager = NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: diagnostics.handler
        )
        let group = NetworkActivityGroup(manager: manager, label: "Uploads")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        manager.resetNetworkActivity()
        manager.cancelNetworkTasks()
        #expect(told.value == 1)
        group.operationFinished()
        #expect(diagnostics.kinds == [.groupFinishWithoutStart], "a finish after a reset is reported, as before")
    }

    @Test func aSiblingsCancelLeavesItAloneAndDeadWorkIsNotHeld() {
        let feed = NetworkIndicatorManager(parent: root, label: "Feed")
        let profile = NetworkIndicatorManager(parent: root, label: "Profile")
        let load = CancelTests.Work()
        weak var released: CancelTests.Work?
        do {
            let other = CancelTests.Work()
            released = other
            feed.beganNetworkTask(withToken: other)
        }
        feed.beganNetworkTask(withToken: load)
        root.resetNetworkActivity()
        #expect(released == nil, "held weakly")
        profile.cancelNetworkTasks()
        #expect(load.cancelCount == 0)
        root.cancelNetworkTasks()
        #expect(load.cancelCount == 1)
        withExtendedLifetime(load) {}
    }

    @Test func workThatEndedBeforeTheResetIsNotCancelled() {
        let load = CancelTests.Work()
        root.beganNetworkTask(withToken: load)
        root.finishedNetworkTask(forToken: load)
        root.resetNetworkActivity()
        root.cancelNetworkTasks()
        #expect(load.cancelCount == 0)
        withExtendedLifetime(load) {}
    }

    /// Work a reset kept is let go once its late finish says it ended: a later cancel finds
    /// nothing of it, even once the object does other work elsewhere (a sibling's load).
    @Test func aLateFinishAfterTheResetLetsTheWorkGo() {
        let feed = NetworkIndicatorManager(parent: root, label: "Feed")
        let profile = NetworkIndicatorManager(parent: root, label: "Profile")
        let load = CancelTests.Work()
        feed.beganNetworkTask(withToken: load)
        root.resetNetworkActivity()
        feed.finishedNetworkTask(forToken: load)  // its work ended (reported: after a reset)
        root.cancelNetworkTasks()
        #expect(load.cancelCount == 0, "ended work is not cancelled")
        let shared = CancelTests.Work()
        feed.beganNetworkTask(withToken: shared)
        root.resetNetworkActivity()
        feed.finishedNetworkTask(forToken: shared)
        profile.beganNetworkTask(withToken: shared)  // now the profile's
        feed.cancelNetworkTasks()
        #expect(shared.cancelCount == 0, "a sibling's work is left alone")
        withExtendedLifetime((load, shared)) {}
    }

    @Test func aGroupsLateFinishAfterTheResetLetsItsWorkGo() {
        let group = NetworkActivityGroup(manager: root, label: "Uploads")
        let told = LockedCounter()
        group.cancellationHandler = { told.increment() }
        group.operationStarted()
        root.resetNetworkActivity()
        group.operationFinished()
        group.operationStarted()
        group.operationFinished()
        root.cancelNetworkTasks()
        #expect(told.value == 0, "nothing open, nothing going on")
    }
}
