import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A load whose cancellation blocks until its transfer's own queue answers, as Foundation's
/// `data(for:)` does on Linux (its cancellation handler waits for the session's work queue,
/// which may at that moment be completing the load: swift-corelibs-foundation issue 5412).
/// `cancelNetworkTasks()` returns without waiting for that handler, and the load's caller is
/// resumed with `URLError(.cancelled)` at once.
@Suite("A load whose cancellation blocks")
struct BlockingLoadCancelTests {
    @Test func cancelNetworkTasksReturnsWithoutWaitingForTheLoadsCancellation() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let (started, loadStarted) = AsyncStream.makeStream(of: Void.self)
        let (handled, handlerEnded) = AsyncStream.makeStream(of: Void.self)
        let gate = DispatchSemaphore(value: 0)
        // Whether the load's cancellation found the gate open, which it is only once the
        // manager's cancel has returned; it waits at most 10 s, and records `false` then.
        let handlerSawCancelReturn = LockedStateBox(false)
        let caller = Task {
            try await CancellableLoad<Int>.run(in: manager, label: "blocking", site: .none, progress: nil) {
                try await withTaskCancellationHandler {
                    loadStarted.yield()
                    try await Task.sleep(for: .seconds(3600))
                    return 1
                } onCancel: {
                    let opened = gate.wait(timeout: .now() + 10) == .success
                    handlerSawCancelReturn.update { $0 = opened }
                    handlerEnded.finish()
                }
            }
        }
        for await _ in started { break }
        await Task.detached { manager.cancelNetworkTasks() }.value
        gate.signal()
        await #expect(throws: URLError(.cancelled)) { try await caller.value }
        #expect(manager.activeTaskCount == 0)
        for await _ in handled {}
        #expect(handlerSawCancelReturn.read(), "the cancel waited for the load's cancellation")
    }
}

/// What a cancel does to the work of a load it no longer waits for: the cancel of the load's task
/// runs when the load's `cancelWork` runs it (a second later on Linux), and a result that still
/// comes goes to its `discard` (a download's file, deleted).
@Suite("A cancelled load's work")
struct CancelledLoadWorkTests {
    /// The cancel of the load's task, kept until the test runs it.
    private final class HeldCancel: Sendable {
        private let held = LockedStateBox<(@Sendable () -> Void)?>(nil)
        func keep(_ cancel: @escaping @Sendable () -> Void) { held.update { $0 = cancel } }
        func run() { held.read()?() }
    }

    @Test func theLoadsTaskIsCancelledWhenItsCancelWorkRunsIt() async throws {
        let held = HeldCancel()
        let load = CancellableLoad<Int>(cancelWork: held.keep)
        let (started, operationStarted) = AsyncStream.makeStream(of: Void.self)
        let (cancelled, operationCancelled) = AsyncStream.makeStream(of: Void.self)
        let caller = Task {
            try await load.run {
                await withTaskCancellationHandler {
                    operationStarted.yield()
                    try? await Task.sleep(for: .seconds(3600))
                    return 1
                } onCancel: {
                    operationCancelled.finish()
                }
            }
        }
        for await _ in started { break }
        load.cancel()
        await #expect(throws: URLError(.cancelled)) { try await caller.value }
        held.run()
        for await _ in cancelled {}  // ends only once the operation's task was cancelled
    }

    @Test func aResultThatComesAfterTheCancelIsDiscarded() async throws {
        let discarded = LockedStateBox<[Int]>([])
        let load = CancellableLoad<Int>(
            cancelWork: { _ in },
            discard: { value in discarded.update { $0.append(value) } }
        )
        let gate = AsyncStream.makeStream(of: Void.self)
        let (started, operationStarted) = AsyncStream.makeStream(of: Void.self)
        let caller = Task {
            try await load.run {
                operationStarted.yield()
                for await _ in gate.stream {}
                return 7
            }
        }
        for await _ in started { break }
        load.cancel()
        await #expect(throws: URLError(.cancelled)) { try await caller.value }
        #expect(discarded.read().isEmpty, "the operation has not returned yet")
        gate.continuation.finish()
        await eventually { discarded.read() == [7] }
        #expect(discarded.read() == [7])
    }

    @Test func aResultThatComesFirstIsNotDiscarded() async throws {
        let discarded = LockedStateBox<[Int]>([])
        let load = CancellableLoad<Int>(
            cancelWork: { _ in },
            discard: { value in discarded.update { $0.append(value) } }
        )
        #expect(try await load.run { 7 } == 7)
        load.cancel()
        #expect(discarded.read().isEmpty)
    }
}
