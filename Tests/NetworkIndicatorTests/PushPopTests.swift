import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Push/pop counting and reset")
struct CountingTests {
    @Test func pushesAndPopsBalance() {
        let harness = Harness()
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.popNetworkActivity()
        #expect(harness.manager.activeTaskCount == 1)
        harness.manager.popNetworkActivity()
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
    }

    @Test func popWithoutPushIsIgnoredAndReported() {
        let harness = Harness()
        harness.manager.popNetworkActivity()
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.popWithoutPush])
        harness.manager.pushNetworkActivity()
        #expect(harness.manager.activeTaskCount == 1, "the extra pop absorbed nothing")
    }

    @Test func popsNeverTakeFromTokenTasks() {
        let harness = Harness()
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.popNetworkActivity()
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.diagnostics.kinds == [.popWithoutPush])
    }

    @Test func resetEndsEveryKindOfTaskAndHides() {
        let harness = Harness(completionDelay: 0.2)
        let token = Token()
        let opaque = harness.manager.beganNetworkTask()
        let group = NetworkActivityGroup(manager: harness.manager)
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.pushNetworkActivity()
        group.operationStarted()
        harness.settle()
        #expect(harness.manager.activeTaskCount == 4)

        harness.manager.resetNetworkActivity()
        #expect(harness.manager.activeTaskCount == 0)
        #expect(group.activeOperationCount == 0)
        harness.advance(by: 0.2)
        #expect(harness.visibilityChanges == [false, true, false])
        #expect(harness.scheduler.pendingWorkCount == 0, "the sweep stopped too")
        withExtendedLifetime((opaque, group)) {}
    }

    @Test func callsReferringToActivityBeforeAResetAreHarmless() {
        let harness = Harness()
        let token = Token()
        var opaque: NetworkActivityToken? = harness.manager.beganNetworkTask()
        var group: NetworkActivityGroup? = NetworkActivityGroup(manager: harness.manager)
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.pushNetworkActivity()
        group!.operationStarted()
        harness.manager.resetNetworkActivity()

        harness.manager.pushNetworkActivity()  // new activity after the reset
        harness.manager.finishedNetworkTask(forToken: token)
        harness.manager.popNetworkActivity()  // balances the new push
        harness.manager.popNetworkActivity()  // refers to the old one
        group!.operationFinished()
        opaque = nil
        group = nil
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.unknownFinish, .popWithoutPush, .groupFinishWithoutStart])

        harness.manager.pushNetworkActivity()
        #expect(harness.manager.activeTaskCount == 1, "nothing absorbed the new push")
        _ = (opaque, group)
    }
}
