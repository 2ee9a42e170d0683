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

    // MARK: - One clock for every open body

    @Test func bodiesReadToTheEndOneAfterAnotherShareOneTimer() async throws {
        let harness = MiddlewareHarness()
        for index in 0..<10 {
            let body = try #require(try await harness.respond(with: HTTPBody("chunk \(index)")))
            _ = try await String(collecting: body, upTo: 100)
        }
        #expect(harness.count == 0)
        #expect(harness.scheduler.scheduledTimerCount <= 1, "not a timer per body")
    }

    @Test func bodiesKeptUnreadTogetherEachEndAtTheirOwnTimeout() async throws {
        let harness = MiddlewareHarness()
        let first = try await harness.respond(with: HTTPBody("first"))
        harness.scheduler.advance(by: 10)
        let second = try await harness.respond(with: HTTPBody("second"))
        let third = try await harness.respond(with: HTTPBody("third"))
        #expect(harness.scheduler.scheduledTimerCount <= 1, "one timer for the three bodies")
        harness.scheduler.advance(by: timeout - 10)
        let afterFirstTimeout = harness.count
        harness.scheduler.advance(by: 10)
        #expect(afterFirstTimeout == 2, "the first body's task ended at its timeout, the others run")
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
        withExtendedLifetime((first, second, third)) {}
    }

    @Test func aBodyEndedEarlyIsForgottenByTheClock() async throws {
        let harness = MiddlewareHarness()
        let kept = try await harness.respond(with: HTTPBody("kept"))
        var dropped = try await harness.respond(with: HTTPBody("dropped"))
        dropped = nil  // released unread: its task ends now
        #expect(harness.count == 1)
        #expect(harness.middleware.clocks.clock(for: harness.manager).waitingCount == 1, "only the kept body")
        harness.scheduler.advance(by: timeout)
        #expect(harness.count == 0)
        #expect(harness.middleware.clocks.clock(for: harness.manager).waitingCount == 0)
        #expect(harness.diagnostics.isEmpty, "nothing ended twice")
        withExtendedLifetime((kept, dropped)) {}
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

    /// Whichever way ends a body's task first, the others, the unread-body timer included, end
    /// nothing more. A real race is one of these orders (each end is one decision under the
    /// activity's lock), so each order is forced by hand: the task ends one way, then the timer
    /// fires although the end cancelled it (a timer already on its way to the main queue when
    /// the cancel came), then the body is read again and released. A second finish of one task
    /// would be reported as a diagnostic.
    @Test(arguments: FirstEnd.allCases)
    func timerThatFiresAfterAnotherEndEndsNothingMore(first: FirstEnd) async throws {
        let harness = MiddlewareHarness()
        let scheduler = TimerIgnoringCancelScheduler(base: harness.scheduler)
        let middleware = NetworkActivityMiddleware(
            manager: harness.manager,
            unreadBodyTimeout: timeout,
            scheduler: scheduler
        )
        let manual = ManualBody(length: .known(4))
        var body: HTTPBody? = try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing"
        ) { _, _, _ in (HTTPResponse(status: .ok), manual.body) }.1
        var iterator = body?.makeAsyncIterator()
        switch first {
        case .readToTheEnd:
            manual.send("body")
            manual.continuation.finish()
            while try await iterator?.next() != nil {}
        case .failedRead:
            manual.continuation.finish(throwing: ReadFailure())
            _ = try? await iterator?.next()
        case .release:
            iterator = nil
            body = nil
        case .managerCancel:
            harness.manager.cancelNetworkTasks()
        }
        let countAfterTheEnd = harness.count
        harness.scheduler.advance(by: timeout)
        _ = try? await iterator?.next()
        iterator = nil
        body = nil
        manual.continuation.finish()
        #expect(countAfterTheEnd == 0)
        #expect(scheduler.fires == 1, "the timer ran after the end")
        // Ending forgets the body's deadline; the clock's timer, shared by every body, is not
        // cancelled, and its firing finds nothing due.
        #expect(scheduler.firedAfterCancel == 0)
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty, "\(harness.diagnostics)")
    }

    /// The other order: the timer ends the task first, then the body is read to the end, then
    /// released.
    @Test func endsAfterTheTimerEndNothingMore() async throws {
        let harness = MiddlewareHarness()
        var body = try await harness.respond(with: HTTPBody("kept, then read"))
        harness.scheduler.advance(by: timeout)
        let countAfterTheTimer = harness.count
        _ = try await String(collecting: try #require(body), upTo: 100)
        body = nil
        #expect(countAfterTheTimer == 0)
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty, "\(harness.diagnostics)")
    }

    /// The unread-body timer lets the system coalesce it with others (a tenth of its delay, at
    /// most a second, as the manager's own timers do): a timeout is a bound, not a deadline.
    @Test(arguments: [(30, 1), (2, 0.2), (0, 0)] as [(TimeInterval, TimeInterval)])
    func unreadTimerAsksForATenthOfItsDelayAsLeewayUpToASecond(timeout: TimeInterval, leeway: TimeInterval) async throws
    {
        let harness = MiddlewareHarness()
        let scheduler = TimerIgnoringCancelScheduler(base: harness.scheduler)
        let middleware = NetworkActivityMiddleware(
            manager: harness.manager,
            unreadBodyTimeout: timeout,
            scheduler: scheduler
        )
        let body = try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing"
        ) { _, _, _ in (HTTPResponse(status: .ok), HTTPBody("kept")) }.1
        #expect(scheduler.leeways == [leeway])
        withExtendedLifetime(body) {}
    }

    /// How a body's task ends first in ``timerThatFiresAfterAnotherEndEndsNothingMore(first:)``.
    enum FirstEnd: CaseIterable, Sendable {
        case readToTheEnd, failedRead, release, managerCancel
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

    /// The clock's timer is not cancelled when a body ends (the next body would have to make
    /// one again): it fires once more, finds nothing due, and stops.
    @Test func noTimerIsLeftOnceTheLastBodyEndedAndItsTimeoutPassed() async throws {
        let harness = MiddlewareHarness()
        harness.scheduler.runPendingWork()
        let pendingBefore = harness.scheduler.pendingWorkCount
        let body = try #require(try await harness.respond(with: HTTPBody("hello")))
        let pendingWhileOpen = harness.scheduler.pendingWorkCount
        _ = try await String(collecting: body, upTo: 100)
        harness.scheduler.advance(by: timeout)
        #expect(pendingWhileOpen > pendingBefore)
        #expect(harness.scheduler.pendingWorkCount == pendingBefore)
        #expect(harness.count == 0)
    }
}

/// A manual scheduler whose timers fire even when cancelled, counting those that do (a timer
/// that was already on its way to the main queue when its cancel came), and recording the
/// leeway each timer asked for.
private final class TimerIgnoringCancelScheduler: NetworkIndicatorScheduler {
    let base: ManualNetworkIndicatorScheduler
    private let counts = LockedValue((fires: 0, afterCancel: 0))
    private let recordedLeeways = LockedValue<[TimeInterval]>([])

    /// The leeway each timer was scheduled with, in order.
    var leeways: [TimeInterval] { recordedLeeways.withLock { $0 } }

    init(base: ManualNetworkIndicatorScheduler) {
        self.base = base
    }

    /// How many timers ran, and how many of them after they were cancelled.
    var fires: Int { counts.withLock { $0.fires } }
    var firedAfterCancel: Int { counts.withLock { $0.afterCancel } }

    var now: TimeInterval { base.now }

    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        base.enqueue(work)
    }

    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        let handle = LateHandle()
        recordedLeeways.withLock { $0.append(leeway) }
        let counts = counts
        _ = base.schedule(after: delay, repeating: interval, leeway: leeway) {
            let isCancelled = handle.isCancelled
            counts.withLock { counts in
                counts.fires += 1
                if isCancelled { counts.afterCancel += 1 }
            }
            work()
        }
        return handle
    }

    /// Records the cancel, and lets the timer run anyway.
    private final class LateHandle: NetworkIndicatorTimer {
        private let cancelled = LockedValue(false)

        var isCancelled: Bool { cancelled.withLock { $0 } }

        func cancel() {
            cancelled.withLock { $0 = true }
        }
    }
}
