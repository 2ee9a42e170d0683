import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// A request cancelled by its screen leaves its batch before its task ends: a reading between
/// the cancel's end of the task and the request's own cancel never counts it as done.
@Suite struct CancelWindowTests {
    /// A token the cancel reaches before the request (it was begun first): its `cancel()` reads
    /// the manager's fraction.
    private final class ReadingToken: NetworkActivityCancellable, Sendable {
        let manager: NetworkIndicatorManager
        let fraction = LockedValue<Double?>(nil)

        init(manager: NetworkIndicatorManager) {
            self.manager = manager
        }

        func cancel() {
            let read = manager.progressSnapshot().fractionCompleted
            fraction.withLock { $0 = read }
        }
    }

    @Test func cancelledRequestLeavesItsBatchBeforeItsHandlerRuns() async throws {
        let harness = MiddlewareHarness()
        let reader = ReadingToken(manager: harness.manager)
        harness.manager.beganNetworkTask(withToken: reader)
        let running = NetworkActivityProgress(totalUnitCount: 100)
        running.completedUnitCount = 50
        let other = harness.manager.beganNetworkTask(label: "not cancellable", progress: running)
        let manual = ManualBody(length: .known(100))
        let body = try #require(try await harness.respond(with: manual.body))
        var iterator = body.makeAsyncIterator()
        manual.send(String(repeating: "x", count: 25))
        _ = try await iterator.next()
        harness.manager.cancelNetworkTasks()
        #expect(reader.fraction.withLock { $0 } == 0.5, "only the task the cancel could not stop: 50 of 100")
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0.5)
        manual.continuation.finish()
        withExtendedLifetime(other) {}
    }

    /// What keeps a request's task once its response is back lets go of it at the cancel, or at
    /// once if the cancel landed between the response and the body's making, and only once.
    @Test func aReleaseGivenAfterTheCancelRunsAtOnce() {
        let released = LockedValue(0)
        let before = RequestCancellation()
        before.whenCancelled { released.withLock { $0 += 1 } }
        #expect(released.withLock { $0 } == 0)
        before.cancel()
        before.cancel()
        #expect(released.withLock { $0 } == 1)

        let after = RequestCancellation()
        after.cancel()
        after.whenCancelled { released.withLock { $0 += 1 } }
        #expect(released.withLock { $0 } == 2)
    }
}
