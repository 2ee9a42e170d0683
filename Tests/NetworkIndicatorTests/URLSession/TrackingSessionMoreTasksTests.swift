import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if !canImport(ObjectiveC)
extension RealLoadSuites {
    /// The wrapper's other task methods: streamed uploads and WebSocket tasks.
    /// Linux counts a task from its creation (Apple platforms from its resume), so these tasks are
    /// never resumed: nothing goes on the network. The sessions are cancelled, not finished:
    /// swift-corelibs-foundation keeps a finished session whose tasks never ran alive for good
    /// (LeakSanitizer reports it).
    @Suite("Session-wide tracking: more task kinds")
    struct TrackingSessionMoreTasksTests {
        private static let socketURL = URL(string: "ws://127.0.0.1:9/socket")!

        private func makeSession(
            countsTask: @escaping @Sendable (URLSessionTask) -> Bool = NetworkActivityTrackingSession
                .countsTaskByDefault
        ) -> NetworkActivityTrackingSession {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.completionCheckInterval = 3600
            return NetworkActivityTrackingSession(configuration: .ephemeral, manager: manager, countsTask: countsTask)
        }

        @Test func webSocketTasksAreLeftOutByDefault() {
            let tracking = makeSession()
            let tasks = [
                tracking.webSocketTask(with: Self.socketURL),
                tracking.webSocketTask(with: Self.socketURL, protocols: ["chat"]),
                tracking.webSocketTask(with: URLRequest(url: Self.socketURL)),
            ]
            #expect(tracking.manager.activeTaskCount == 0)
            tracking.session.invalidateAndCancel()
            withExtendedLifetime(tasks) {}
        }

        @Test func webSocketTasksCountUnderAFilterThatLetsThemIn() {
            let tracking = makeSession { _ in true }
            let tasks = [
                tracking.webSocketTask(with: Self.socketURL),
                tracking.webSocketTask(with: Self.socketURL, protocols: ["chat"]),
                tracking.webSocketTask(with: URLRequest(url: Self.socketURL)),
            ]
            #expect(tracking.manager.activeTaskCount == 3)
            #expect(
                tracking.manager.activitySnapshot().activities.map(\.label).allSatisfy { $0 == "GET 127.0.0.1/socket" }
            )
            tracking.session.invalidateAndCancel()
            withExtendedLifetime(tasks) {}
        }

        /// `downloadTask(withResumeData:)` is left out here: swift-corelibs-foundation keeps a
        /// session that made a resume-data download which never ran alive for good, with its tasks
        /// (LeakSanitizer reports it, `invalidateAndCancel()` included), so only the Apple check
        /// covers those two wrappers.
        @Test func streamedUploadsCount() {
            let tracking = makeSession()
            let upload = tracking.uploadTask(
                withStreamedRequest: URLRequest(url: URL(string: "http://127.0.0.1:9/up")!)
            )
            #expect(tracking.manager.activeTaskCount == 1)
            tracking.session.invalidateAndCancel()
            withExtendedLifetime(upload) {}
        }
    }
}
#endif
