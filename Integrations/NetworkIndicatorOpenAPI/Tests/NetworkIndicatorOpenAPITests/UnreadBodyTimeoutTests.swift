import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// A body that something keeps but does not read ends after the unread-body timeout, measured on
/// the manual scheduler the harness shares with its manager.
@MainActor
@Suite struct UnreadBodyTimeoutTests {
    private let timeout = MiddlewareHarness.unreadTimeout

    /// A generated client throws a `ClientError` that keeps a body it could not decode; an app
    /// that keeps the error for an alert must not keep the indicator on for long.
    @Test func keptUnreadBodyEndsWithinTwoSecondsUnderTheDefaults() async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let middleware = NetworkActivityMiddleware(manager: manager)
        let (_, body) = try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing"
        ) { _, _, _ in (HTTPResponse(status: .notFound), HTTPBody("undocumented")) }
        let countWhileKept = manager.activeTaskCount
        scheduler.advance(by: 2)
        #expect(countWhileKept == 1)
        #expect(manager.activeTaskCount == 0)
        #expect(NetworkActivityMiddleware.defaultUnreadBodyTimeout <= 2)
        withExtendedLifetime(body) {}
    }

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
        var countAfterADay = 0
        do {
            let body = try await harness.respond(with: HTTPBody("kept"))
            harness.scheduler.advance(by: 86_400)
            countAfterADay = harness.count
            withExtendedLifetime(body) {}
        }
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
        do {
            let body = try #require(try await harness.respond(with: HTTPBody("hello")))
            _ = try await String(collecting: body, upTo: 100)
            _ = try await String(collecting: body, upTo: 100)
            harness.scheduler.advance(by: timeout * 2)
        }
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
    }

    /// The timer fires on the main actor while other tasks read bodies to the end and release
    /// them: whichever comes first ends each task, and nothing ends one twice (a second finish
    /// would be reported as a diagnostic).
    @Test func timerRacingReadsAndReleasesEndsEachTaskOnce() async throws {
        let harness = MiddlewareHarness()
        var read: [HTTPBody] = []
        let released = LockedValue<[HTTPBody]>([])
        for index in 0..<200 {
            let body = try #require(try await harness.respond(with: HTTPBody("body \(index)")))
            if index.isMultiple(of: 2) {
                read.append(body)
            } else {
                released.withLock { $0.append(body) }
            }
        }
        harness.scheduler.advance(by: timeout - 1)
        let racing = read
        read = []
        let others = Task.detached {
            await withTaskGroup(of: Void.self) { group in
                for body in racing {
                    group.addTask { _ = try? await String(collecting: body, upTo: 100) }
                }
                group.addTask { released.withLock { $0.removeAll() } }
            }
        }
        harness.scheduler.advance(by: 1)
        await others.value
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
    }

    @Test(arguments: [0, -5] as [TimeInterval])
    func zeroOrNegativeTimeoutEndsAnUnreadBodyAtTheTimersFirstRun(timeout: TimeInterval) async throws {
        let harness = MiddlewareHarness(unreadBodyTimeout: timeout)
        let body = try await harness.respond(with: HTTPBody("never read"))
        let countBefore = harness.count
        harness.scheduler.runPendingWork()
        #expect(countBefore == 1)
        #expect(harness.count == 0)
        withExtendedLifetime(body) {}
    }

    @Test func zeroTimeoutWaitsForAPendingReadWithoutATimer() async throws {
        let harness = MiddlewareHarness(unreadBodyTimeout: 0)
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        let reader = Task { try await String(collecting: body, upTo: 100) }
        await manual.readRequested()
        harness.scheduler.runPendingWork()
        let workBefore = harness.scheduler.executedWorkCount
        harness.scheduler.advance(by: 10)
        let workWhileWaiting = harness.scheduler.executedWorkCount - workBefore
        let countWhileWaiting = harness.count
        manual.send("late")
        manual.continuation.finish()
        #expect(try await reader.value == "late")
        #expect(countWhileWaiting == 1)
        #expect(workWhileWaiting == 0, "a timer ran while the read was waiting for the server")
        #expect(harness.count == 0)
    }

    @Test func zeroTimeoutEndsTheTaskAtTheFirstTimerRunAfterAWaitingReadReturns() async throws {
        let harness = MiddlewareHarness(unreadBodyTimeout: 0)
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        let (received, receivedContinuation) = AsyncStream<Void>.makeStream()
        let (proceed, proceedContinuation) = AsyncStream<Void>.makeStream()
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
            receivedContinuation.yield()
            for await _ in proceed { break }
            withExtendedLifetime(iterator) {}  // its release would end the task
        }
        await manual.readRequested()
        harness.scheduler.runPendingWork()  // the timer finds the read waiting
        manual.send("first")
        for await _ in received { break }
        let countAfterTheRead = harness.count
        harness.scheduler.runPendingWork()
        let countAfterTheTimer = harness.count  // the reader still holds its iterator
        proceedContinuation.yield()
        try await reader.value
        #expect(countAfterTheRead == 1)
        #expect(countAfterTheTimer == 0)
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
