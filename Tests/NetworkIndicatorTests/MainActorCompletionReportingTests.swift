import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A request object of a main-actor app: its state lives on the main actor, where the sweep
/// asks it whether it is finished, so it conforms without `nonisolated` or a lock.
@MainActor
private final class ProfileRequest: NetworkActivityCompletionReporting {
    var isDone = false
    var isNetworkActivityFinished: Bool { isDone }
}

@MainActor
@Suite("A main-actor token that reports completion")
struct MainActorCompletionReportingTests {
    @Test func aMainActorRequestEndsAtTheSweepAfterItIsDone() {
        let harness = Harness()
        let request = ProfileRequest()
        harness.manager.beganNetworkTask(withToken: request)
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 1)
        request.isDone = true
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime(request) {}
    }
}
