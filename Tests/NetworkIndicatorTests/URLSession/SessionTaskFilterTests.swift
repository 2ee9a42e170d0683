import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// Which tasks the session-wide forms count: by default every task but a WebSocket or stream
    /// task, which is a connection rather than a load; a filter of the caller's decides otherwise.
    @Suite("Session-wide task filter")
    struct SessionTaskFilterTests {
        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.completionCheckInterval = 3600
            return manager
        }

        @Test func defaultFilterLeavesOutWebSocketTasks() {
            let session = URLSession(configuration: .ephemeral)
            let webSocket = session.webSocketTask(with: URL(string: "ws://127.0.0.1:9/socket")!)
            #expect(NetworkActivityTrackingSession.countsTaskByDefault(webSocket) == false)
            // Never resumed: cancelled, since swift-corelibs-foundation keeps a finished session
            // whose tasks never ran alive for good (LeakSanitizer reports it).
            session.invalidateAndCancel()
        }

        #if !canImport(ObjectiveC)
        /// Made directly (swift-corelibs-foundation has the class, but opens no stream task); Apple
        /// platforms run the same rule on the same class.
        @Test func defaultFilterLeavesOutStreamTasks() {
            #expect(NetworkActivityTrackingSession.countsTaskByDefault(URLSessionStreamTask()) == false)
        }
        #endif

        @Test func defaultFilterCountsDataUploadAndDownloadTasks() {
            let session = URLSession(configuration: .ephemeral)
            let url = URL(string: "http://127.0.0.1:9/")!
            let tasks: [URLSessionTask] = [
                session.dataTask(with: url),
                session.uploadTask(with: URLRequest(url: url), from: Data("x".utf8)),
                session.downloadTask(with: url),
            ]
            #expect(tasks.map(NetworkActivityTrackingSession.countsTaskByDefault) == [true, true, true])
            // Never resumed: cancelled, since swift-corelibs-foundation keeps a finished session
            // whose tasks never ran alive for good (LeakSanitizer reports it).
            session.invalidateAndCancel()
        }

        @Test func wrapperFiltersWithTheDefaultUnlessToldOtherwise() {
            let tracking = NetworkActivityTrackingSession(configuration: .ephemeral, manager: makeManager())
            let webSocket = tracking.session.webSocketTask(with: URL(string: "ws://127.0.0.1:9/socket")!)
            let data = tracking.session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
            #expect(tracking.countsTask(webSocket) == false)
            #expect(tracking.countsTask(data) == true)
            tracking.session.invalidateAndCancel()  // never resumed, as above
        }

        @Test func wrapperCountsOnlyTheTasksItsFilterLetThrough() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let tracking = NetworkActivityTrackingSession(configuration: .ephemeral, manager: manager) { task in
                NetworkActivityTrackingSession.countsTaskByDefault(task) && task.originalRequest?.url?.path != "/events"
            }
            server.holdResponses()
            let longPoll = tracking.dataTask(with: server.url("/events"))
            let load = tracking.dataTask(with: server.url("/data"))
            longPoll.resume()
            load.resume()
            await eventually { manager.activeTaskCount != 0 }
            #expect(manager.activeTaskCount == 1)
            #expect(manager.activitySnapshot().activities.map(\.label) == ["GET 127.0.0.1/data"])
            server.releaseResponses()
            await eventually { longPoll.state == .completed && load.state == .completed }
            tracking.session.finishTasksAndInvalidate()
        }
        /// The filter applies to the wrapper's async loads too: each is asked about the task
        /// its load makes, before the task runs.
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test(arguments: AsyncLoad.allCases)
        func wrapperAsksItsFilterAboutEveryAsyncLoad(_ load: AsyncLoad) async throws {
            try await withTemporaryFile(containing: "twelve bytes") { file in
                let server = try LocalHTTPServer()
                let manager = makeManager()
                let tracking = NetworkActivityTrackingSession(configuration: .ephemeral, manager: manager) { task in
                    task.originalRequest?.url?.path != "/events"
                }
                let url = server.url("/\(load)")
                server.holdResponses()
                let events = Task.detached { try await load.run(on: tracking, url: server.url("/events"), file: file) }
                let counted = Task.detached { try await load.run(on: tracking, url: url, file: file) }
                await eventually { server.heldResponses == 2 }
                #expect(manager.activeTaskCount == 1)
                #expect(manager.activitySnapshot().activities.map(\.label) == ["\(load.method) 127.0.0.1\(url.path)"])
                server.releaseResponses()
                let body = try await counted.value
                #expect(String(decoding: body, as: UTF8.self) == load.expectedBody(for: url))
                _ = try await events.value
                #expect(manager.activeTaskCount == 0)
                tracking.session.finishTasksAndInvalidate()
            }
        }
    }
}
