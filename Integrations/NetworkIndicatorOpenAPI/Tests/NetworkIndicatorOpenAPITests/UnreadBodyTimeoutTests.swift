import Foundation
import NetworkIndicator
import NetworkIndicatorOpenAPI
import OpenAPIRuntime
import Testing

/// A body that something keeps but does not read ends after the unread-body timeout, measured on
/// the manual scheduler the harness shares with its manager.
@MainActor
@Suite struct UnreadBodyTimeoutTests {
    private let timeout = MiddlewareHarness.unreadTimeout

    @Test func keptUnreadBodyEndsWhenTheTimeoutPasses() async throws {
        let harness = MiddlewareHarness()
        let body = try await harness.respond(with: HTTPBody("never read"))
        harness.scheduler.advance(by: timeout - 1)
        let countJustBefore = harness.count
        harness.scheduler.advance(by: 1)
        #expect(countJustBefore == 1)
        #expect(harness.count == 0)
        withExtendedLifetime(body) {}
    }

    @Test func timeoutRestartsWhenAReadReturns() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        let (proceed, proceedContinuation) = AsyncStream<Void>.makeStream()
        let (received, receivedContinuation) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
            receivedContinuation.yield()
            for await _ in proceed { break }
        }
        await manual.readRequested()
        harness.scheduler.advance(by: timeout - 10)
        manual.send("chunk")
        for await _ in received { break }
        harness.scheduler.advance(by: timeout - 1)
        let countJustBefore = harness.count
        harness.scheduler.advance(by: 1)
        proceedContinuation.yield()
        try await reader.value
        #expect(countJustBefore == 1)
        #expect(harness.count == 0)
    }

    @Test func pendingReadIsNeverCutByTheTimeout() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        let reader = Task { try await String(collecting: body, upTo: 100) }
        await manual.readRequested()
        harness.scheduler.advance(by: timeout * 3)
        let countWhileWaiting = harness.count
        manual.send("late")
        manual.continuation.finish()
        #expect(try await reader.value == "late")
        #expect(countWhileWaiting == 1)
        #expect(harness.count == 0)
    }

    @Test func noTimeoutKeepsAnUnreadBodyCountedUntilItIsReleased() async throws {
        let harness = MiddlewareHarness(unreadBodyTimeout: nil)
        var body = try await harness.respond(with: HTTPBody("kept"))
        harness.scheduler.advance(by: 86_400)
        let countAfterADay = harness.count
        body = nil
        #expect(body == nil)
        #expect(countAfterADay == 1)
        #expect(harness.count == 0)
    }

    @Test func readAfterTheTimeoutReturnsTheBytesUncounted() async throws {
        let harness = MiddlewareHarness()
        let body = try #require(try await harness.respond(with: HTTPBody("still here")))
        harness.scheduler.advance(by: timeout)
        let text = try await String(collecting: body, upTo: 100)
        #expect(text == "still here")
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
    }

    @Test func everyWayOfEndingEndsTheTaskOnce() async throws {
        let harness = MiddlewareHarness()
        var body = try await harness.respond(with: HTTPBody("hello"))
        _ = try await String(collecting: try #require(body), upTo: 100)
        _ = try await String(collecting: try #require(body), upTo: 100)
        harness.scheduler.advance(by: timeout * 2)
        body = nil
        #expect(body == nil)
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
    }

    @Test func timerIsCancelledWhenTheBodyEnds() async throws {
        let harness = MiddlewareHarness()
        harness.scheduler.runPendingWork()
        let pendingBefore = harness.scheduler.pendingWorkCount
        let body = try #require(try await harness.respond(with: HTTPBody("hello")))
        let pendingWhileOpen = harness.scheduler.pendingWorkCount
        _ = try await String(collecting: body, upTo: 100)
        harness.scheduler.runPendingWork()
        #expect(pendingWhileOpen > pendingBefore)
        #expect(harness.scheduler.pendingWorkCount == pendingBefore)
    }
}
