import Foundation
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Manager lifetime")
struct LifetimeTests {
    @Test func releasedManagerCancelsItsTimersAndReleasesItsOutputs() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        weak let weakManager = manager
        var output: RecordingNetworkIndicatorOutput? = RecordingNetworkIndicatorOutput()
        weak let weakOutput = output
        manager!.addOutput(output!)
        output = nil
        manager!.completionDelay = 0.5
        let token = Token()
        manager!.beganNetworkTask(withToken: token)
        scheduler.runPendingWork()
        manager!.finishedNetworkTask(forToken: token)
        scheduler.runPendingWork()
        #expect(scheduler.pendingWorkCount == 1, "the hide delay is running")

        manager = nil
        #expect(weakManager == nil)
        #expect(weakOutput == nil)
        #expect(scheduler.pendingWorkCount == 0, "its timers were cancelled")
        scheduler.advance(by: 10)
    }

    @Test func pendingHopDoesNotKeepTheManagerAlive() {
        let scheduler = ManualNetworkIndicatorScheduler()
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        weak let weakManager = manager
        manager!.pushNetworkActivity()
        #expect(scheduler.pendingWorkCount == 1)
        manager = nil
        #expect(weakManager == nil)
        scheduler.runPendingWork()
    }

    @Test func opaqueTokenKeepsItsManagerAlive() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        weak let weakManager = manager
        var token: NetworkActivityToken? = manager!.beganNetworkTask()
        manager = nil
        #expect(weakManager != nil)
        #expect(weakManager?.activeTaskCount == 1)
        token = nil
        _ = token
        #expect(weakManager == nil)
    }
}
