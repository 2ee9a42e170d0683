import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The logic under `bytes(for:tracking:)` (Apple-only), on plain async sequences: one task from
/// the request to the end of the body.
@Suite("A task handed off to a sequence's iterator")
struct HandedOffActivityTests {
    private struct Failure: Error {}

    private func makeManager() -> NetworkIndicatorManager {
        NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
    }

    private func iterator(
        over elements: [Int],
        failing: Bool = false,
        in manager: NetworkIndicatorManager
    ) -> HandedOffActivityIterator<AsyncThrowingStream<Int, any Error>.Iterator> {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            for element in elements { continuation.yield(element) }
            continuation.finish(throwing: failing ? Failure() : nil)
        }
        let handoff = ActivityHandoff(HandedOffLoad(manager: manager, label: "request"))
        return HandedOffActivityIterator(
            base: stream.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
    }

    @Test func handedOffTaskLastsUntilTheSequenceFinishes() async throws {
        let manager = makeManager()
        var bytes = iterator(over: [1, 2], in: manager)
        #expect(manager.activeTaskCount == 1)
        #expect(try await bytes.next() == 1)
        #expect(try await bytes.next() == 2)
        #expect(manager.activeTaskCount == 1, "the same task, not a second one")
        #expect(manager.activitySnapshot().activities.map(\.label) == ["request"])
        #expect(try await bytes.next() == nil)
        #expect(manager.activeTaskCount == 0)
        #expect(try await bytes.next() == nil)
    }

    @Test func handedOffTaskEndsWhenTheSequenceFails() async {
        let manager = makeManager()
        var bytes = iterator(over: [1], failing: true, in: manager)
        _ = try? await bytes.next()
        await #expect(throws: Failure.self) { try await bytes.next() }
        #expect(manager.activeTaskCount == 0)
    }

    @Test func handedOffTaskEndsWhenTheIteratorIsReleased() async throws {
        let manager = makeManager()
        var bytes: HandedOffActivityIterator? = iterator(over: [1, 2], in: manager)
        #expect(try await bytes?.next() == 1)
        bytes = nil
        #expect(manager.activeTaskCount == 0)
    }

    @Test func handoffDroppedUnreadEndsItsTask() {
        let manager = makeManager()
        var handoff: ActivityHandoff? = ActivityHandoff(HandedOffLoad(manager: manager, label: "request"))
        #expect(manager.activeTaskCount == 1)
        handoff = nil
        #expect(manager.activeTaskCount == 0)
        _ = handoff
    }

    @Test func onlyTheFirstIteratorTakesTheHandedOffTask() async throws {
        let manager = makeManager()
        let handoff = ActivityHandoff(HandedOffLoad(manager: manager, label: "request"))
        let first = HandedOffActivityIterator(
            base: AsyncStream<Int> { $0.finish() }.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
        var second = HandedOffActivityIterator(
            base: AsyncStream<Int> { $0.yield(1) }.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
        #expect(manager.activeTaskCount == 1)
        _ = try await second.next()
        #expect(manager.activitySnapshot().activities.map(\.label).sorted() == ["body", "request"])
        withExtendedLifetime(first) {}
    }

    @Test func cancelWhileTheResponseIsAwaitedThrowsCancelledAtOnce() async throws {
        let manager = makeManager()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let openWasCancelled = LockedStateBox(false)
        let call = Task {
            try await HandedOffLoad.open(in: manager, label: "request") {
                startedContinuation.yield()
                // A response that comes after 20 s, unless the load is cancelled first.
                do {
                    try await Task.sleep(nanoseconds: 20_000_000_000)
                } catch {
                    openWasCancelled.update { $0 = true }
                    throw error
                }
                return (AsyncStream<Int> { $0.finish() }, 200)
            } cancelBody: { _ in
                {}
            }
        }
        for await _ in started { break }
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 0, "ended by the cancel")
        await #expect(throws: URLError.self) { _ = try await call.value }
        if case .failure(let error as URLError) = await call.result { #expect(error.code == .cancelled) }
        await eventually { openWasCancelled.read() }
        #expect(openWasCancelled.read(), "the request's own task was cancelled too")
    }

    @Test func cancelAfterTheResponseEndsTheTaskAndStopsTheBody() async throws {
        let manager = makeManager()
        let (body, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        let (opened, _, handoff) = try await HandedOffLoad.open(in: manager, label: "request") {
            (body, 200)
        } cancelBody: { _ in
            { continuation.finish(throwing: Failure()) }
        }
        var bytes = HandedOffActivityIterator(
            base: opened.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
        continuation.yield(1)
        #expect(try await bytes.next() == 1)
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 0, "ended by the cancel")
        continuation.yield(2)
        await #expect(throws: Failure.self) { try await bytes.next() }
        #expect(manager.activeTaskCount == 0)
    }

    @Test func cancelBeforeTheBodyIsIteratedStopsItsFirstRead() async throws {
        let reported = LockedStateBox(0)
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler()) { _ in
            reported.update { $0 += 1 }
        }
        let (body, continuation) = AsyncThrowingStream<Int, any Error>.makeStream()
        let (opened, _, handoff) = try await HandedOffLoad.open(in: manager, label: "request") {
            (body, 200)
        } cancelBody: { _ in
            { continuation.finish(throwing: Failure()) }
        }
        manager.cancelNetworkTasks()
        continuation.yield(1)
        var bytes = HandedOffActivityIterator(
            base: opened.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
        await #expect(throws: Failure.self) { try await bytes.next() }
        #expect(manager.activeTaskCount == 0)
        #expect(reported.read() == 0, "the iterator's own end after the cancel is no misuse")
    }

    /// Counts its calls; returns `remaining` elements, then `nil` (and would go on answering).
    private struct CountingIterator: AsyncIteratorProtocol {
        let calls: LockedStateBox<Int>
        var remaining: Int

        mutating func next() async -> Int? {
            calls.update { $0 += 1 }
            guard remaining > 0 else { return nil }
            remaining -= 1
            return remaining
        }
    }

    @Test func nextAfterTheEndAsksTheBaseNothingAndBeginsNoTask() async throws {
        let manager = makeManager()
        let calls = LockedStateBox(0)
        var bytes = HandedOffActivityIterator(
            base: CountingIterator(calls: calls, remaining: 1),
            handoff: ActivityHandoff(HandedOffLoad(manager: manager, label: "request")),
            manager: manager,
            label: "body"
        )
        #expect(try await bytes.next() == 0)
        #expect(try await bytes.next() == nil)
        #expect(try await bytes.next() == nil)
        #expect(calls.read() == 2, "the base is not asked again after its end")
        #expect(manager.activeTaskCount == 0)
    }
}
