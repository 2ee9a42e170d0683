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
