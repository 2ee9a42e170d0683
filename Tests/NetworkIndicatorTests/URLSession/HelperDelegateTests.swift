import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The async helpers take a `delegate:` and hand it to Foundation's own `delegate:`, while
    /// Foundation's methods keep resolving to Foundation's. Each test checks the messages the
    /// delegate hears on the platform it runs on: Apple platforms tell a task delegate of an async
    /// load's completion; swift-corelibs-foundation (as of Swift 6.3) does not, but tells it of the
    /// bytes sent and, if it is a data delegate, of the response and the bytes received.
    @Suite("A task delegate passed to the async helpers")
    struct HelperDelegateTests {
        /// Records what it hears of its loads, from any thread.
        private final class DelegateRecorder: NSObject, URLSessionDataDelegate, Sendable {
            private struct Heard {
                var completedPaths: [String] = []
                var received = Data()
                var bytesSent: Int64 = 0
            }

            private let heard = LockedState(Heard())

            /// The paths of the tasks it heard complete, in order.
            var completedPaths: [String] { heard.withLock { $0.completedPaths } }
            /// The body bytes it heard received, in order.
            var receivedBody: String { heard.withLock { String(decoding: $0.received, as: UTF8.self) } }
            /// The last total of body bytes it heard sent.
            var bytesSent: Int64 { heard.withLock { $0.bytesSent } }

            func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
                let path = task.originalRequest?.url?.path ?? "?"
                heard.withLock { $0.completedPaths.append(path) }
            }

            func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
                heard.withLock { $0.received.append(data) }
            }

            func urlSession(
                _ session: URLSession,
                task: URLSessionTask,
                didSendBodyData bytesSent: Int64,
                totalBytesSent: Int64,
                totalBytesExpectedToSend: Int64
            ) {
                heard.withLock { $0.bytesSent = totalBytesSent }
            }
        }

        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.settings.completionCheckInterval = 3600
            return manager
        }

        /// `data(for:tracking:delegate:)` counts the load until it returns, and the caller's
        /// delegate is the one Foundation tells of it: of its completion on Apple platforms, of
        /// its body's bytes on Linux.
        @Test func dataForARequestIsTrackedAndItsDelegateHearsTheLoad() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let recorder = DelegateRecorder()
            let request = URLRequest(url: server.url("/delegated"))
            let (data, _) = try await whileHeld(server, manager, label: "GET 127.0.0.1/delegated") {
                try await session.data(for: request, tracking: manager, delegate: recorder)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /delegated")
            #if canImport(ObjectiveC)
            await eventually { recorder.completedPaths == ["/delegated"] }
            #else
            await eventually { recorder.receivedBody == "ok /delegated" }
            #endif
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        /// `upload(for:from:tracking:delegate:)` counts the load until it returns, and the
        /// caller's delegate is the one Foundation tells of it: of its completion on Apple
        /// platforms, of the body bytes sent on Linux.
        @Test func uploadIsTrackedAndItsDelegateHearsTheLoad() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let recorder = DelegateRecorder()
            let sent = httpRequest("POST", server.url("/upload"))
            let (data, _) = try await whileHeld(server, manager, label: "POST 127.0.0.1/upload") {
                try await session.upload(for: sent, from: Data("hi".utf8), tracking: manager, delegate: recorder)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /upload 2 bytes")
            #if canImport(ObjectiveC)
            await eventually { recorder.completedPaths == ["/upload"] }
            #else
            await eventually { recorder.bytesSent == 2 }
            #endif
            session.finishTasksAndInvalidate()
        }

        @Test func foundationsOwnMethodsStillResolveToFoundations() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let recorder = DelegateRecorder()
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
