import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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

    @Test func completedDownloadCountsAsDoneWhileItsScopeIsBusy() async throws {
        let server = try LocalHTTPServer()
        let manager = makeManager()
        let session = makeSession()
        let other = manager.beganNetworkTask(label: "keeps the scope busy")
        let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
        manager.track(task)
        task.resume()
        await eventually { task.state == .completed }
        #expect(manager.fractionCompleted == 1)
        other.end()
        session.finishTasksAndInvalidate()
    }

    @Test func completedUploadCountsAsDoneWhileItsScopeIsBusy() async throws {
        let server = try LocalHTTPServer()
        let manager = makeManager()
        let session = URLSession(configuration: .ephemeral)
        let other = manager.beganNetworkTask(label: "keeps the scope busy")
        var request = URLRequest(url: server.url("/upload"))
        request.httpMethod = "POST"
        let task = session.uploadTask(with: request, from: Data(repeating: 0x62, count: 1024))
        manager.track(task)
        task.resume()
        await eventually { task.state == .completed }
        #expect(manager.fractionCompleted == 1, "an upload counts the bytes it sent")
        other.end()
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

/// Takes a download's file and drops it: a session with a delegate is the one whose download
/// tasks swift-corelibs-foundation counts the bytes of as they arrive.
private final class DiscardingDownloadDelegate: NSObject, URLSessionDownloadDelegate, Sendable {
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
    }
}
