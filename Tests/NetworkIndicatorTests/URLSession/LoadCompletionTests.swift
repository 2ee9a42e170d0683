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
        _ = try await CancellableLoad<Int>.run(in: manager, label: "download", progress: progress) {
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
        _ = try await CancellableLoad<Int>.run(in: manager, label: "download", progress: progress) {
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
            try await CancellableLoad<Int>.run(in: manager, label: "download", progress: progress) {
                progress.attach(URLSessionDataTask())
                throw URLError(.networkConnectionLost)
            }
        }
        #expect(progress.reading.isCancelled)
    }
}
