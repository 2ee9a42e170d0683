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
            manager.completionCheckInterval = 3600
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
                return (try Data(contentsOf: file), response)
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
                try Data(contentsOf: try await session.download(from: url, tracking: manager).0)
            }
            #expect(String(decoding: file, as: UTF8.self) == "ok /other")
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func uploadOfDataIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            var request = URLRequest(url: server.url("/upload"))
            request.httpMethod = "POST"
            let sent = request
            let (data, _) = try await whileHeld(server, manager, label: "POST 127.0.0.1/upload") {
                try await session.upload(for: sent, from: Data("hello".utf8), tracking: manager)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /upload 5 bytes")
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func uploadOfAFileIsTrackedUntilItReturns() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID()).txt")
            try Data("twelve bytes".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            var request = URLRequest(url: server.url("/file-upload"))
            request.httpMethod = "PUT"
            let sent = request
            let (data, _) = try await whileHeld(server, manager, label: "PUT 127.0.0.1/file-upload") {
                try await session.upload(for: sent, fromFile: file, tracking: manager)
            }
            #expect(String(decoding: data, as: UTF8.self) == "ok /file-upload 12 bytes")
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func uploadThatFailsEndsWhenItThrows() async throws {
            let refusingPort = try LocalHTTPServer().port  // released at once: nothing listens there
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(refusingPort)/upload")!)
            request.httpMethod = "POST"
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
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            server.holdResponses()
            defer { server.releaseResponses() }
            let download = Task.detached {
                try await session.download(from: server.url("/held"), tracking: manager)
            }
            await eventually { manager.activeTaskCount == 1 }
            download.cancel()
            await eventually { manager.activeTaskCount == 0 }
            #expect(manager.activeTaskCount == 0)
            await eventually { server.heldResponses == 0 }  // stopped before the release
            session.invalidateAndCancel()
        }

        @Test func cancelledUploadEndsAtOnce() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            server.holdResponses()
            defer { server.releaseResponses() }
            var request = URLRequest(url: server.url("/held-upload"))
            request.httpMethod = "POST"
            let sent = request
            let upload = Task.detached {
                try await session.upload(for: sent, from: Data("x".utf8), tracking: manager)
            }
            await eventually { manager.activeTaskCount == 1 }
            upload.cancel()
            await eventually { manager.activeTaskCount == 0 }
            #expect(manager.activeTaskCount == 0)
            await eventually { server.heldResponses == 0 }  // stopped before the release
            session.invalidateAndCancel()
        }
    }
}
