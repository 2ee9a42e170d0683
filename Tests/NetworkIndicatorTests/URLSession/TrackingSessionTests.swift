import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
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
            #expect(tracking.manager.activitySnapshot().activities.map(\.label) == ["GET 127.0.0.1/data"])
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
                tracking.uploadTask(with: httpRequest("POST", server.url("/upload")), from: Data("abc".utf8)),
            ]
            for task in tasks { task.resume() }
            #expect(tracking.manager.activeTaskCount == 3)
            server.releaseResponses()
            await eventually { tasks.allSatisfy { $0.state == .completed } }
            #expect(
                tasks.map { $0.error == nil && ($0.response as? HTTPURLResponse)?.statusCode == 200 } == [
                    true, true, true,
                ]
            )
            await poll(scheduler)
            #expect(tracking.manager.activeTaskCount == 0)
            tracking.session.finishTasksAndInvalidate()
        }

        @Test func everyTaskMethodCountsItsTaskUntilItCompletes() async throws {
            try await withTemporaryFile(containing: "twelve bytes") { file in
                let server = try LocalHTTPServer()
                let (tracking, scheduler) = makeSession()
                let bodies = LockedState<[String]>([])
                let recordBody: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, _, error in
                    let body =
                        data.map { String(decoding: $0, as: UTF8.self) } ?? "failed: \(String(describing: error))"
                    bodies.withLock { $0.append(body) }
                }
                // The downloaded file is the handler's: read it there, and remove it.
                let recordFile: @Sendable (URL?, URLResponse?, (any Error)?) -> Void = { location, response, error in
                    recordBody(location.flatMap { try? contentsOfDownloadedFile(at: $0) }, response, error)
                }
                server.holdResponses()
                let tasks: [URLSessionTask] = [
                    tracking.dataTask(with: URLRequest(url: server.url("/data-request"))),
                    tracking.dataTask(with: server.url("/data-url"), completionHandler: recordBody),
                    tracking.uploadTask(with: httpRequest("POST", server.url("/upload-file")), fromFile: file),
                    tracking.uploadTask(
                        with: httpRequest("POST", server.url("/upload-data-handler")),
                        from: Data("abc".utf8),
                        completionHandler: recordBody
                    ),
                    tracking.uploadTask(
                        with: httpRequest("POST", server.url("/upload-file-handler")),
                        fromFile: file,
                        completionHandler: recordBody
                    ),
                    tracking.downloadTask(
                        with: URLRequest(url: server.url("/download-request-handler")),
                        completionHandler: recordFile
                    ),
                    tracking.downloadTask(with: server.url("/download-url-handler"), completionHandler: recordFile),
                ]
                for task in tasks { task.resume() }
                #expect(tracking.manager.activeTaskCount == tasks.count, "each task counts while its response is held")
                #expect(
                    tracking.manager.activitySnapshot().activities.map(\.label).sorted()
                        == tasks.map { "\($0.originalRequest!.httpMethod!) 127.0.0.1\($0.originalRequest!.url!.path)" }
                        .sorted()
                )
                server.releaseResponses()
                await eventually { tasks.allSatisfy { $0.state == .completed } }
                await poll(scheduler)
                #expect(tracking.manager.activeTaskCount == 0)
                await eventually { bodies.withLock { $0.count } == 5 }
                #expect(
                    bodies.withLock { $0 }.sorted() == [
                        "ok /data-url",
                        "ok /download-request-handler",
                        "ok /download-url-handler",
                        "ok /upload-data-handler 3 bytes",
                        "ok /upload-file-handler 12 bytes",
                    ],
                    "the completion handlers still receive their results"
                )
                tracking.session.finishTasksAndInvalidate()
            }
        }

        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test(arguments: AsyncLoad.allCases)
        func everyAsyncLoadCountsUntilItReturns(_ load: AsyncLoad) async throws {
            try await withTemporaryFile(containing: "twelve bytes") { file in
                let server = try LocalHTTPServer()
                let (tracking, _) = makeSession()
                let url = server.url("/\(load)")
                let body = try await whileHeld(server, tracking.manager, label: "\(load.method) 127.0.0.1\(url.path)") {
                    try await load.run(on: tracking, url: url, file: file)
                }
                #expect(String(decoding: body, as: UTF8.self) == load.expectedBody(for: url))
                #expect(tracking.manager.activeTaskCount == 0)
                tracking.session.finishTasksAndInvalidate()
            }
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

        /// Who cancels an async load of the wrapper.
        enum Canceller: CaseIterable, Sendable {
            case callingTask, manager
        }

        @Test(arguments: Canceller.allCases)
        func aCancelledAsyncLoadThrowsCancelledAndEnds(by canceller: Canceller) async throws {
            let server = try LocalHTTPServer()
            let (tracking, _) = makeSession()
            server.holdResponses()
            defer { server.releaseResponses() }
            let load = Task.detached { try await tracking.data(from: server.url("/cancelled")) }
            await eventually { server.heldResponses == 1 }
            switch canceller {
            case .callingTask:
                load.cancel()
            case .manager:
                tracking.manager.cancelNetworkTasks()
                #expect(tracking.manager.activeTaskCount == 0, "ended at once")
            }
            let error = await #expect(throws: URLError.self) { try await load.value }
            #expect(error?.code == .cancelled)
            #expect(tracking.manager.activeTaskCount == 0)
            await server.waitUntilCancelledLoadsHaveStopped()
            tracking.session.finishTasksAndInvalidate()
        }

        @Test func sessionDelegateStillReceivesItsMessages() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.completionCheckInterval = 3600
            let delegate = CompletionRecorder()
            let tracking = NetworkActivityTrackingSession(
                configuration: .ephemeral,
                delegate: delegate,
                manager: manager
            )
            let task = tracking.dataTask(with: server.url("/delegated"))
            task.resume()
            #expect(manager.activeTaskCount == 1)
            await eventually { delegate.completedTaskCount == 1 }
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0)
            tracking.session.finishTasksAndInvalidate()
        }
    }
}

/// The wrapper's async loads, each against the loopback server.
enum AsyncLoad: String, CaseIterable, Sendable {
    case dataForRequest, uploadOfData, uploadOfAFile, downloadForRequest, downloadFromURL

    /// Runs the load of `url` through `tracking` (uploading `file` or three bytes) and returns
    /// the response body, or the downloaded file's contents.
    @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
    func run(on tracking: NetworkActivityTrackingSession, url: URL, file: URL) async throws -> Data {
        switch self {
        case .dataForRequest:
            return try await tracking.data(for: URLRequest(url: url)).0
        case .uploadOfData:
            return try await tracking.upload(for: httpRequest("POST", url), from: Data("abc".utf8)).0
        case .uploadOfAFile:
            return try await tracking.upload(for: httpRequest("POST", url), fromFile: file).0
        case .downloadForRequest:
            return try contentsOfDownloadedFile(at: try await tracking.download(for: URLRequest(url: url)).0)
        case .downloadFromURL:
            return try contentsOfDownloadedFile(at: try await tracking.download(from: url).0)
        }
    }

    /// The load's HTTP method, which its label names.
    var method: String {
        switch self {
        case .uploadOfData, .uploadOfAFile: "POST"
        case .dataForRequest, .downloadForRequest, .downloadFromURL: "GET"
        }
    }

    /// What the loopback server answers to the load of `url`.
    func expectedBody(for url: URL) -> String {
        switch self {
        case .dataForRequest, .downloadForRequest, .downloadFromURL: "ok \(url.path)"
        case .uploadOfData: "ok \(url.path) 3 bytes"
        case .uploadOfAFile: "ok \(url.path) 12 bytes"
        }
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
