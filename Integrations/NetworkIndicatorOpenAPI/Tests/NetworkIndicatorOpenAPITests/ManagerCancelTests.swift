import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// `cancelNetworkTasks()` on the manager a request counts in (or an ancestor) stops the request:
/// through `intercept` called directly, with a `next` that stands for a transport.
@Suite struct ManagerCancelTests {
    /// A transport that answers after `holdSeconds` unless its task is cancelled first, in which
    /// case it throws ``TransportFailure`` (a transport's own cancellation error).
    private static func slowTransport(
        started: AsyncStream<Void>.Continuation,
        sawCancel: LockedValue<Bool>,
        holdSeconds: UInt64 = 20
    ) -> @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) {
        { _, _, _ in
            started.yield()
            do {
                try await Task.sleep(nanoseconds: holdSeconds * 1_000_000_000)
            } catch {
                sawCancel.withLock { $0 = true }
                throw TransportFailure()
            }
            return (HTTPResponse(status: .ok), HTTPBody("late"))
        }
    }

    private static func intercept(
        _ middleware: NetworkActivityMiddleware,
        next: @escaping @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing",
            next: next
        )
    }

    @Test func managerCancelMakesAWaitingRequestThrowCancellationError() async throws {
        let harness = MiddlewareHarness()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let sawCancel = LockedValue(false)
        let next = Self.slowTransport(started: startedContinuation, sawCancel: sawCancel)
        let call = Task { try await Self.intercept(harness.middleware, next: next) }
        for await _ in started { break }
        harness.manager.cancelNetworkTasks()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(harness.count == 0)
        #expect(sawCancel.withLock { $0 }, "the transport's work was cancelled too")
        #expect(harness.diagnostics.isEmpty, "the middleware's own finish after the cancel is absorbed")
    }

    @Test func ancestorsCancelReachesARequestCountedInAScope() async throws {
        let harness = MiddlewareHarness()
        let screen = NetworkIndicatorManager(parent: harness.manager, label: "screen")
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let next = Self.slowTransport(started: startedContinuation, sawCancel: LockedValue(false))
        let call = Task {
            try await NetworkIndicatorManager.$current.withValue(screen) {
                try await Self.intercept(NetworkActivityMiddleware(), next: next)
            }
        }
        for await _ in started { break }
        let countWhileRunning = screen.activeTaskCount
        harness.manager.cancelNetworkTasks()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(countWhileRunning == 1)
        #expect(screen.activeTaskCount == 0)
    }

    @Test func callersOwnCancellationStillThrowsTheTransportsError() async throws {
        let harness = MiddlewareHarness()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        // A transport that takes a while to wind down once cancelled: the middleware's own
        // waiter, cancelled with it, ends first, and must not decide the error.
        let next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?) = {
            _,
            _,
            _ in
            startedContinuation.yield()
            try? await Task.sleep(nanoseconds: 20 * 1_000_000_000)
            await withCheckedContinuation { continuation in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { continuation.resume() }
            }
            throw TransportFailure()
        }
        let call = Task { try await Self.intercept(harness.middleware, next: next) }
        for await _ in started { break }
        call.cancel()
        await #expect(throws: TransportFailure()) { _ = try await call.value }
        #expect(harness.count == 0)
    }

    @Test func managerCancelMakesTheNextBodyReadThrowAndEndsTheTaskAtOnce() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        var iterator = body.makeAsyncIterator()
        manual.send("first")
        let first = try await iterator.next()
        harness.manager.cancelNetworkTasks()
        let countAfterCancel = harness.count
        manual.send("second")
        await #expect(throws: CancellationError.self) { _ = try await iterator.next() }
        #expect(first.map { String(decoding: $0, as: UTF8.self) } == "first")
        #expect(countAfterCancel == 0)
        #expect(harness.diagnostics.isEmpty)
    }

    /// The caller's task is cancelled before the request starts, and the transport answers
    /// anyway (a cache, a transport that finishes what it started): the answer comes back, and
    /// nothing waits forever for a cancel that already happened.
    @Test(.timeLimit(.minutes(1)))
    func requestFromAnAlreadyCancelledTaskReturnsTheTransportsAnswer() async throws {
        let harness = MiddlewareHarness()
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Self.intercept(harness.middleware) { _, _, _ in (HTTPResponse(status: .accepted), nil) }
        }
        let (response, body) = try await call.value
        #expect(response.status == .accepted)
        #expect(body == nil)
        #expect(harness.count == 0)
    }

    /// A middleware after this one signs the user out (it cancels the screen's work) and
    /// returns its answer, or fails (a transport's own error for the load the cancel stopped):
    /// the cancel landed while `next` ran, so the call throws `CancellationError`, however fast
    /// `next` returned or threw. Which of `next` and the cancel's waiter the race hears first
    /// varies from run to run, so each case runs 50 times.
    @Test(arguments: [false, true])
    func aCancelWhileNextRunsMakesTheCallThrowThoughNextEndsAtOnce(nextFails: Bool) async throws {
        for _ in 0..<50 {
            let harness = MiddlewareHarness()
            let manager = harness.manager
            await #expect(throws: CancellationError.self) {
                _ = try await Self.intercept(harness.middleware) { _, _, _ in
                    manager.cancelNetworkTasks()
                    if nextFails { throw TransportFailure() }
                    return (HTTPResponse(status: .noContent), nil)
                }
            }
            #expect(harness.count == 0)
            #expect(harness.diagnostics.isEmpty)
        }
    }

    /// The caller's own task is cancelled first, and the transport goes on (it ignores
    /// cancellation); then the screen cancels, before the transport answers: the call throws
    /// `CancellationError`, as for any cancel that lands while `next` runs.
    @Test(.timeLimit(.minutes(1)))
    func aManagerCancelAfterTheCallersOwnStillMakesTheCallThrow() async throws {
        let harness = MiddlewareHarness()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let call = Task {
            try await Self.intercept(harness.middleware) { _, _, _ in
                startedContinuation.yield()
                for await _ in release { break }  // ignores the task's cancellation
                return (HTTPResponse(status: .noContent), nil)
            }
        }
        for await _ in started { break }
        call.cancel()
        harness.manager.cancelNetworkTasks()
        releaseContinuation.yield()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(harness.count == 0)
    }
}
