import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The bytes of tracked URLSession tasks in `fractionCompleted`, against the loopback server's
    /// `/half/N` path, which sends the first half of a body with a known length and holds the rest:
    /// the load is surely halfway through until the test releases it. Download tasks of a session
    /// with a delegate: the kind whose bytes Foundation counts on every platform (see
    /// `URLSessionTaskProgress.ByteCounts`).
    @Suite("URLSession task progress")
    struct URLSessionTaskProgressTests {
        private static let half = 64 * 1024

        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.completionCheckInterval = 3600
            manager.completionDelay = 0
            return manager
        }

        private func makeSession() -> URLSession {
            URLSession(configuration: .ephemeral, delegate: DiscardingDownloadDelegate(), delegateQueue: nil)
        }

        /// The units are the task's whatever is written to them (by Foundation's own bookkeeping,
        /// say): the roll-up reads the task, never a stored value. With no task attached yet, the
        /// reading is the initial one, an unknown total.
        @Test func writtenUnitsDoNotReplaceTheTasksReading() {
            let progress = URLSessionTaskProgress(task: nil)
            progress.totalUnitCount = 10
            progress.completedUnitCount = 5
            #expect(progress.totalUnitCount == -1)
            #expect(progress.completedUnitCount == 0)
        }

        @Test func trackedDownloadReadsHalfDoneWhileItsSecondHalfIsHeld() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = makeSession()
            server.holdResponses()
            let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(task)
            #expect(manager.fractionCompleted == nil, "no byte has been counted yet")
            task.resume()
            await eventually { manager.fractionCompleted == 0.5 }
            server.releaseResponses()
            await eventually { task.state == .completed }
            session.finishTasksAndInvalidate()
        }

        @Test func aCompletedDownloadCountsAsDoneWhileAnotherRuns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = makeSession()
            let first = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(first)
            first.resume()
            await eventually { first.state == .completed }
            server.holdResponses()
            let second = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(second)
            second.resume()
            await eventually { manager.fractionCompleted == 0.75 }
            server.releaseResponses()
            await eventually { second.state == .completed }
            session.finishTasksAndInvalidate()
        }

        @Test func aCompletedUploadCountsTheBytesItSent() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let uploads = URLSession(configuration: .ephemeral)
            let request = httpRequest("POST", server.url("/upload"))
            let upload = uploads.uploadTask(with: request, from: Data(repeating: 0x62, count: 1024))
            manager.track(upload)
            upload.resume()
            await eventually { upload.state == .completed }
            server.holdResponses()
            let downloads = makeSession()
            let download = downloads.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(download)
            download.resume()
            // 1 024 bytes sent of 1 024, and half of the download's 2 × half.
            let expected = Double(1_024 + Self.half) / Double(1_024 + 2 * Self.half)
            await eventually { manager.fractionCompleted == expected }
            server.releaseResponses()
            await eventually { download.state == .completed }
            uploads.finishTasksAndInvalidate()
            downloads.finishTasksAndInvalidate()
        }

        @Test func aCancelledDownloadLeavesItsBatch() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = makeSession()
            server.holdResponses()
            let kept = session.downloadTask(with: server.url("/half/\(Self.half)"))
            let cancelled = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(kept)
            manager.track(cancelled)
            kept.resume()
            cancelled.resume()
            await eventually { manager.fractionCompleted == 0.5 }
            cancelled.cancel()
            await eventually { cancelled.state == .completed }
            // Counted as done, it would read 0.75; it drops out of both sums instead.
            #expect(manager.fractionCompleted == 0.5)
            server.releaseResponses()
            await eventually { kept.state == .completed }
            session.finishTasksAndInvalidate()
        }

        @Test func trackingSessionDownloadFeedsItsBytes() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let tracking = NetworkActivityTrackingSession(
                configuration: .ephemeral,
                delegate: DiscardingDownloadDelegate(),
                manager: manager
            )
            server.holdResponses()
            let task = tracking.downloadTask(with: server.url("/half/\(Self.half)"))
            task.resume()
            await eventually { manager.fractionCompleted == 0.5 }
            server.releaseResponses()
            await eventually { task.state == .completed }
            tracking.session.finishTasksAndInvalidate()
        }

        @Test func downloadInAChildScopeRollsIntoItsParent() async throws {
            let server = try LocalHTTPServer()
            let parent = makeManager()
            let child = NetworkIndicatorManager(parent: parent, label: "downloads")
            let session = makeSession()
            server.holdResponses()
            let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
            child.track(task)
            task.resume()
            await eventually { parent.fractionCompleted == 0.5 }
            server.releaseResponses()
            await eventually { task.state == .completed }
            session.finishTasksAndInvalidate()
        }
    }
}

/// Takes a download's file and removes it: a session with a delegate is the one whose download
/// tasks swift-corelibs-foundation counts the bytes of as they arrive.
private final class DiscardingDownloadDelegate: NSObject, URLSessionDownloadDelegate, Sendable {
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        removeDownloadedFile(at: location)
    }
}
