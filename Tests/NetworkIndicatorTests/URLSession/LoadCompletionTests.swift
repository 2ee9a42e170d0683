import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A helper's load records its end before its task ends: a reading at any moment counts a load
/// that returned as done and one that threw as failed.
@Suite("Load completion")
struct LoadCompletionTests {
    /// A helper's load that returned counts as done, even though URLSession let go of its task
    /// as it completed (the load's progress can no longer read it).
    @Test func aLoadThatReturnedCountsAsDoneThoughItsTaskIsGone() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let progress = URLSessionTaskProgress(task: nil)
        _ = try await CancellableLoad<Int>.run(in: manager, label: "download", site: .none, progress: progress) {
            // URLSession makes the task, the delegate attaches it, and it is released as it
            // completes, before the load returns.
            progress.attach(URLSessionDataTask())
            return 1
        }
        #expect(!progress.reading.isCancelled, "the load succeeded")
    }

    /// A task last read before it ran (suspended) is not left paused by its load's success: it
    /// counts as done, not as the bytes it had when paused.
    @Test func aLoadThatReturnedIsNotLeftPaused() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let progress = URLSessionTaskProgress(task: nil)
        _ = try await CancellableLoad<Int>.run(in: manager, label: "download", site: .none, progress: progress) {
            let task = URLSessionDataTask()  // made, never resumed: suspended
            progress.attach(task)
            #expect(progress.reading.isPaused)
            return 1
        }
        #expect(!progress.reading.isPaused)
        #expect(!progress.reading.isCancelled)
    }

    @Test func aLoadThatThrewStillLeavesItsBatch() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let progress = URLSessionTaskProgress(task: nil)
        await #expect(throws: URLError.self) {
            try await CancellableLoad<Int>.run(in: manager, label: "download", site: .none, progress: progress) {
                progress.attach(URLSessionDataTask())
                throw URLError(.networkConnectionLost)
            }
        }
        #expect(progress.reading.isCancelled)
    }
}

extension LoadCompletionTests {
    /// A load that returned its result counts as done even when a cancel of its manager was
    /// announced, and its task read failed, before it returned: the load won the race.
    @Test func aLoadThatReturnedAfterACancelWasAnnouncedCountsAsDone() async throws {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let progress = URLSessionTaskProgress(task: nil)
        _ = try await CancellableLoad<Int>.run(in: manager, label: "download", site: .none, progress: progress) {
            let task = URLSessionDataTask()
            progress.attach(task)
            progress.cancelIsComing()
            #expect(progress.reading.isCancelled, "read failed while the cancel is coming")
            return 1  // the task goes as the load returns
        }
        #expect(!progress.reading.isCancelled)
    }

    /// A task read once it completed keeps that reading after it is gone: a part that completed
    /// counts as done in its batch, even when its task was let go before anything ended it in
    /// the manager (a sweep finds it dead and cannot record its end).
    @Test func aTaskReadCompletedCountsAsDoneOnceItIsGone() async throws {
        let session = URLSession(configuration: .ephemeral)
        var task: URLSessionDataTask? = session.dataTask(with: URL(string: "data:,hello")!)
        let progress = URLSessionTaskProgress(task: task)
        task!.resume()
        let deadline = Date().addingTimeInterval(10)
        while task!.state != .completed && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(task!.state == .completed)
        #expect(!progress.reading.isCancelled, "read while the task is there")
        let gone = WeakReference(task)
        task = nil
        session.finishTasksAndInvalidate()
        while gone.object != nil && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(gone.object == nil)
        #expect(!progress.reading.isCancelled, "still done once the task is gone")
    }
}

/// Draw 70's survivors: a load's failure and an early cancel, from the caller's side.
extension LoadCompletionTests {
    /// A load that threw, whose progress is a plain `Progress` (not its task's), leaves its
    /// batch: its half-done units never count as done beside the work still running.
    @MainActor
    @Test func aLoadThatThrewWithAPlainProgressLeavesItsBatch() async {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let running = Progress(totalUnitCount: 10)
        let other = manager.beganNetworkTask(label: "other", progress: running)
        let failing = Progress(totalUnitCount: 10)
        failing.completedUnitCount = 5
        await #expect(throws: URLError.self) {
            try await CancellableLoad<Int>.run(in: manager, label: "download", site: .none, progress: failing) {
                throw URLError(.networkConnectionLost)
            }
        }
        #expect(manager.progressSnapshot().fractionCompleted == 0, "0 of 10: the failed load left")
        withExtendedLifetime(other) {}
    }

    /// A load cancelled before its caller starts to wait throws at once, and its operation
    /// never runs.
    @Test func aLoadCancelledBeforeItsCallerWaitsThrowsAtOnce() async {
        let load = CancellableLoad<Int>()
        load.cancel()
        let ran = LockedState(false)
        await #expect(throws: URLError.self) {
            try await load.run {
                ran.withLock { $0 = true }
                return 1
            }
        }
        #expect(!ran.withLock { $0 })
    }

    /// A task whose end is recorded before it completed (let go, or never resumed) reads failed:
    /// it leaves its batch instead of counting as done.
    @Test func aTaskEndedBeforeItCompletedReadsFailed() {
        let task = URLSessionDataTask()  // made, never resumed
        let progress = URLSessionTaskProgress(task: task)
        progress.recordEnd(of: task)
        #expect(progress.reading.isCancelled)
    }
}
