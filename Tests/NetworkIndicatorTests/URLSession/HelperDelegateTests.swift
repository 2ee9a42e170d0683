import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The async helpers take a `delegate:` and hand it to Foundation's own `delegate:`, while
    /// Foundation's methods keep resolving to Foundation's. (swift-corelibs-foundation, as of
    /// Swift 6.3, does not call a task delegate of an async load, its own methods' included: the
    /// delegate's messages are checked on Apple platforms only.)
    @Suite("A task delegate passed to the async helpers")
    struct HelperDelegateTests {
        /// Records the tasks it hears complete.
        private final class CompletionRecorder: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
            private let lock = NSLock()
            private var completed: [String] = []

            var completedPaths: [String] {
                lock.lock()
                defer { lock.unlock() }
                return completed
            }

            func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
                lock.lock()
                completed.append(task.originalRequest?.url?.path ?? "?")
                lock.unlock()
            }
        }

        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.completionCheckInterval = 3600
            return manager
        }

        @Test func dataForARequestWithADelegateIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let recorder = CompletionRecorder()
            let request = URLRequest(url: server.url("/delegated"))
            let (data, _) = try await whileHeld(server, manager, label: "GET 127.0.0.1/delegated") {
                try await session.data(for: request, tracking: manager, delegate: recorder)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /delegated")
            #if canImport(ObjectiveC)
            await eventually { recorder.completedPaths == ["/delegated"] }
            #endif
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func uploadWithADelegateIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let recorder = CompletionRecorder()
            let sent = httpRequest("POST", server.url("/upload"))
            let (data, _) = try await whileHeld(server, manager, label: "POST 127.0.0.1/upload") {
                try await session.upload(for: sent, from: Data("hi".utf8), tracking: manager, delegate: recorder)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /upload 2 bytes")
            #if canImport(ObjectiveC)
            await eventually { recorder.completedPaths == ["/upload"] }
            #endif
            session.finishTasksAndInvalidate()
        }

        @Test func foundationsOwnMethodsStillResolveToFoundations() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let recorder = CompletionRecorder()
            let request = URLRequest(url: server.url("/plain"))
            // Foundation's, with and without a delegate: nothing counts, even with a current
            // manager bound. (Were the helpers' overloads to clash, this would not compile.)
            let plain = try await NetworkIndicatorManager.$current.withValue(manager) {
                try await session.data(for: request)
            }
            let delegated = try await NetworkIndicatorManager.$current.withValue(manager) {
                try await session.data(for: request, delegate: recorder)
            }
            #expect(String(decoding: plain.0, as: UTF8.self) == "ok /plain")
            #expect(String(decoding: delegated.0, as: UTF8.self) == "ok /plain")
            #expect(manager.activitySnapshot().activities.isEmpty)
            session.finishTasksAndInvalidate()
        }
    }
}
