import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The labels the URLSession forms give their tasks: method, host and path, never the query,
    /// the fragment or the credentials, which end up in snapshots, diagnostics and the logs made of
    /// them.
    @Suite("Request labels")
    struct RequestLabelTests {
        private static let secretURL = URL(string: "https://alice:hunter2@api.example.com/v1/photos?token=s3cr3t#frag")!

        // MARK: - The rule

        @Test func labelIsMethodHostAndPath() {
            #expect(ActivityLabel.request(method: "GET", url: Self.secretURL) == "GET api.example.com/v1/photos")
        }

        @Test(arguments: ["token=s3cr3t", "frag", "alice", "hunter2", "https"])
        func labelLeavesOutQueryFragmentCredentialsAndScheme(secret: String) {
            let label = ActivityLabel.request(method: "GET", url: Self.secretURL)
            #expect(label?.contains(secret) == false)
        }

        @Test func emptyPathIsTheRoot() {
            #expect(
                ActivityLabel.request(method: "POST", url: URL(string: "https://example.com?q=1")!)
                    == "POST example.com/"
            )
        }

        @Test func unknownMethodIsLeftOut() {
            #expect(ActivityLabel.request(method: nil, url: URL(string: "http://example.com/a")!) == "example.com/a")
        }

        @Test func hostlessURLIsNamedByItsSchemeOnly() {
            let data = URL(string: "data:text/plain;base64,c2VjcmV0")!
            #expect(ActivityLabel.request(method: "GET", url: data) == "GET data:")
        }

        @Test func relativeURLIsNamedByItsAbsoluteForm() {
            let url = URL(string: "items?page=2", relativeTo: URL(string: "https://example.com/v1/")!)!
            #expect(ActivityLabel.request(method: "GET", url: url) == "GET example.com/v1/items")
        }

        @Test func noURLGivesNoLabel() {
            #expect(ActivityLabel.request(method: "GET", url: nil) == nil)
        }

        // MARK: - Through the public API

        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.settings.completionCheckInterval = 3600
            return manager
        }

        /// A DELETE of the secret URL, never resumed. Its session is cancelled at the end, not
        /// finished: swift-corelibs-foundation keeps a finished session whose tasks never ran
        /// alive for good (LeakSanitizer reports it). A task that never ran has nothing in flight
        /// to cancel.
        private var neverResumedDelete: (NetworkIndicatorManager, URLSession, URLSessionDataTask) {
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let request = httpRequest("DELETE", Self.secretURL)
            return (manager, session, session.dataTask(with: request))
        }

        @Test func trackedTaskIsLabelledWithoutItsSecretsInTheSnapshot() {
            let (manager, session, task) = neverResumedDelete
            manager.track(task)
            #expect(manager.activitySnapshot().activities.map(\.label) == ["DELETE api.example.com/v1/photos"])
            #expect(!manager.activitySnapshot().description.contains("s3cr3t"))
            session.invalidateAndCancel()
        }

        /// As its documentation says: a task passed as a token with its own progress is tracked,
        /// named by its request; passed without, by its type.
        @Test func aTaskBegunWithItsOwnProgressIsNamedByItsRequest() {
            let (manager, session, task) = neverResumedDelete
            manager.beganNetworkTask(withToken: task, progress: task.progress)
            #expect(manager.activitySnapshot().activities.map(\.label) == ["DELETE api.example.com/v1/photos"])
            let plain = session.dataTask(with: httpRequest("GET", Self.secretURL))
            manager.beganNetworkTask(withToken: plain)
            let labels = Set(manager.activitySnapshot().activities.map(\.label))
            #expect(labels == ["DELETE api.example.com/v1/photos", "URLSessionDataTask"])
            session.invalidateAndCancel()
        }

        @Test func trackedTaskTakesTheLabelItIsGiven() {
            let (manager, session, task) = neverResumedDelete
            manager.track(task, label: "photo delete")
            #expect(manager.activitySnapshot().activities.map(\.label) == ["photo delete"])
            session.invalidateAndCancel()
        }

        @MainActor
        @Test func staleTaskDiagnosticNamesTheTaskWithoutItsSecrets() {
            let harness = Harness()
            harness.manager.settings.staleTaskThreshold = 10
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: Self.secretURL)
            harness.manager.track(task)
            harness.advance(by: 10)
            #expect(harness.diagnostics.kinds == [.staleTask(age: 10)])
            #expect(harness.diagnostics.all.map(\.label) == ["GET api.example.com/v1/photos"])
            #expect(
                harness.diagnostics.all.first?.description.hasSuffix(
                    "a URLSessionDataTask not completed keeps it open; it ends when the task completes or is cancelled"
                ) == true
            )
            #expect(!harness.diagnostics.all.contains { $0.description.contains("s3cr3t") })
            session.invalidateAndCancel()
        }

        @Test func dataForARequestIsLabelledWithoutItsQuery() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let sent = httpRequest("PUT", server.url("/signed?signature=s3cr3t"))
            _ = try await whileHeld(server, manager, label: "PUT 127.0.0.1/signed") {
                try await session.data(for: sent, tracking: manager)
            }
            session.finishTasksAndInvalidate()
        }

        @Test func dataFromAURLIsLabelledAsAGet() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            _ = try await whileHeld(server, manager, label: "GET 127.0.0.1/feed") {
                try await session.data(from: server.url("/feed?key=s3cr3t"), tracking: manager)
            }
            session.finishTasksAndInvalidate()
        }

        @Test func loadTakesTheLabelItIsGiven() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            _ = try await whileHeld(server, manager, label: "feed") {
                try await session.data(from: server.url("/feed"), tracking: manager, label: "feed")
            }
            session.finishTasksAndInvalidate()
        }

    }
}
