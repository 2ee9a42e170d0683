import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session-wide wrapper against the loopback server, with the sweep an hour away: every
/// task made through it counts until it completes. Off the main actor, like the other loads.
@Suite("Session-wide tracking")
struct TrackingSessionTests {
    private func makeSession() -> (NetworkActivityTrackingSession, ManualNetworkIndicatorScheduler) {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.completionCheckInterval = 3600
        return (NetworkActivityTrackingSession(configuration: .ephemeral, manager: manager), scheduler)
    }

    private func poll(_ scheduler: ManualNetworkIndicatorScheduler) async {
        await MainActor.run { scheduler.advance(by: URLSessionTaskPoller.interval) }
    }

    @Test func dataTaskCountsUntilItCompletes() async throws {
        let server = try LocalHTTPServer()
        let (tracking, scheduler) = makeSession()
        server.holdResponses()
        let body = LockedState<String?>(nil)
        let task = tracking.dataTask(with: URLRequest(url: server.url("/data"))) { data, _, _ in
            body.withLock { $0 = data.map { String(decoding: $0, as: UTF8.self) } }
        }
        task.resume()
        #expect(tracking.manager.activeTaskCount == 1)
        #expect(tracking.manager.activitySnapshot().activities.map(\.label) == [server.url("/data").absoluteString])
        server.releaseResponses()
        await eventually { task.state == .completed }
        await poll(scheduler)
        #expect(tracking.manager.activeTaskCount == 0)
        await eventually { body.withLock { $0 } == "ok /data" }
        tracking.session.finishTasksAndInvalidate()
    }

    @Test func tasksOfEveryKindCountUntilTheyComplete() async throws {
        let server = try LocalHTTPServer()
        let (tracking, scheduler) = makeSession()
        server.holdResponses()
        let tasks: [URLSessionTask] = [
            tracking.dataTask(with: server.url("/data")),
            tracking.downloadTask(with: server.url("/download")),
            tracking.uploadTask(with: URLRequest(url: server.url("/upload")), from: Data("abc".utf8)),
        ]
        for task in tasks { task.resume() }
        #expect(tracking.manager.activeTaskCount == 3)
        server.releaseResponses()
        await eventually { tasks.allSatisfy { $0.state == .completed } }
        await poll(scheduler)
        #expect(tracking.manager.activeTaskCount == 0)
        tracking.session.finishTasksAndInvalidate()
    }

    @Test func cancelledTaskEndsAtTheNextPoll() async throws {
        let server = try LocalHTTPServer()
        let (tracking, scheduler) = makeSession()
        server.holdResponses()
        defer { server.releaseResponses() }
        let task = tracking.downloadTask(with: URLRequest(url: server.url("/held")))
        task.resume()
        task.cancel()
        await eventually { task.state == .completed }
        await poll(scheduler)
        #expect(tracking.manager.activeTaskCount == 0)
        tracking.session.invalidateAndCancel()
    }

    @Test func asyncLoadCountsUntilItReturns() async throws {
        let server = try LocalHTTPServer()
        let (tracking, _) = makeSession()
        server.holdResponses()
        let load = Task.detached { try await tracking.data(from: server.url("/async")) }
        await eventually { tracking.manager.activeTaskCount == 1 }
        server.releaseResponses()
        let (data, _) = try await load.value
        #expect(String(decoding: data, as: UTF8.self) == "ok /async")
        #expect(tracking.manager.activeTaskCount == 0)
        tracking.session.finishTasksAndInvalidate()
    }

    @Test func sessionDelegateStillReceivesItsMessages() async throws {
        let server = try LocalHTTPServer()
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.completionCheckInterval = 3600
        let delegate = CompletionRecorder()
        let tracking = NetworkActivityTrackingSession(configuration: .ephemeral, delegate: delegate, manager: manager)
        let task = tracking.dataTask(with: server.url("/delegated"))
        task.resume()
        #expect(manager.activeTaskCount == 1)
        await eventually { delegate.completedTaskCount == 1 }
        await poll(scheduler)
        #expect(manager.activeTaskCount == 0)
        tracking.session.finishTasksAndInvalidate()
    }
}

/// A session delegate of the app's, which must keep receiving its messages.
private final class CompletionRecorder: NSObject, URLSessionTaskDelegate, Sendable {
    private let completed = LockedState(0)
    var completedTaskCount: Int { completed.withLock { $0 } }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        completed.withLock { $0 += 1 }
    }
}
