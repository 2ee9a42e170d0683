import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The async download and upload helpers against the loopback server, with the sweep an hour
    /// away. Off the main actor, like the other loads.
    @Suite("URLSession downloads and uploads")
    struct URLSessionTransferTests {
        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            manager.settings.completionCheckInterval = 3600
            return manager
        }

        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test func downloadForARequestIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let url = server.url("/file")
            let (file, _) = try await whileHeld(server, manager, label: "GET 127.0.0.1/file") {
                let (file, response) = try await session.download(for: URLRequest(url: url), tracking: manager)
                return (try contentsOfDownloadedFile(at: file), response)
            }
            #expect(String(decoding: file, as: UTF8.self) == "ok /file")
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test func downloadFromAURLIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let url = server.url("/other")
            let file = try await whileHeld(server, manager, label: "GET 127.0.0.1/other") {
                try contentsOfDownloadedFile(at: try await session.download(from: url, tracking: manager).0)
            }
            #expect(String(decoding: file, as: UTF8.self) == "ok /other")
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func uploadOfDataIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let sent = httpRequest("POST", server.url("/upload"))
            let (data, _) = try await whileHeld(server, manager, label: "POST 127.0.0.1/upload") {
                try await session.upload(for: sent, from: Data("hello".utf8), tracking: manager)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /upload 5 bytes")
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func uploadOfAFileIsTrackedUntilItReturns() async throws {
            try await withTemporaryFile(containing: "twelve bytes") { file in
                let server = try LocalHTTPServer()
                let manager = makeManager()
                let session = URLSession(configuration: .ephemeral)
                let sent = httpRequest("PUT", server.url("/file-upload"))
                let (data, _) = try await whileHeld(server, manager, label: "PUT 127.0.0.1/file-upload") {
                    try await session.upload(for: sent, fromFile: file, tracking: manager)
                }
                #expect(String(decoding: data, as: UTF8.self) == "ok /file-upload 12 bytes")
                #expect(manager.activeTaskCount == 0)
                session.finishTasksAndInvalidate()
            }
        }

        @Test func uploadThatFailsEndsWhenItThrows() async throws {
            let refusingPort = try LocalHTTPServer().port  // released at once: nothing listens there
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let request = httpRequest("POST", URL(string: "http://127.0.0.1:\(refusingPort)/upload")!)
            await #expect(throws: (any Error).self) {
                try await session.upload(for: request, from: Data("x".utf8), tracking: manager)
            }
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test func downloadThatFailsEndsWhenItThrows() async throws {
            let refusingPort = try LocalHTTPServer().port
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let url = URL(string: "http://127.0.0.1:\(refusingPort)/file")!
            await #expect(throws: (any Error).self) {
                try await session.download(for: URLRequest(url: url), tracking: manager)
            }
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test func cancelledDownloadEndsAtOnce() async throws {
            try await expectCancelledLoadEndsAtOnce { session, server, manager in
                try await session.download(from: server.url("/held"), tracking: manager)
            }
        }

        @Test func cancelledUploadEndsAtOnce() async throws {
            try await expectCancelledLoadEndsAtOnce { session, server, manager in
                let request = httpRequest("POST", server.url("/held-upload"))
                return try await session.upload(for: request, from: Data("x".utf8), tracking: manager)
            }
        }

        /// Runs `load` against a server that holds its responses, cancels the Swift task running
        /// it once it is counted, and expects the count to drop without the response.
        private func expectCancelledLoadEndsAtOnce<Result: Sendable>(
            sourceLocation: SourceLocation = #_sourceLocation,
            _ load: @escaping @Sendable (URLSession, LocalHTTPServer, NetworkIndicatorManager) async throws -> Result
        ) async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            // Only the cancel may end the load: not the default 60 s request timeout, which would
            // end it as the wait below gives up.
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 3600
            let session = URLSession(configuration: configuration)
            server.holdResponses()
            defer { server.releaseResponses() }
            let task = Task.detached { try await load(session, server, manager) }
            await eventually(sourceLocation: sourceLocation) { manager.activeTaskCount == 1 }
            task.cancel()
            await eventually(sourceLocation: sourceLocation) { manager.activeTaskCount == 0 }
            #expect(manager.activeTaskCount == 0, sourceLocation: sourceLocation)
            // On Linux the cancelled load runs on: stopped here while its response is held.
            if !cancelledHelperLoadsStopAtOnce { session.invalidateAndCancel() }
            await server.waitUntilCancelledLoadsHaveStopped(sourceLocation: sourceLocation)
            session.invalidateAndCancel()
        }
    }
}
