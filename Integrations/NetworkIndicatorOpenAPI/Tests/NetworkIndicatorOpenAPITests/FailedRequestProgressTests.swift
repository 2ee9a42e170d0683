import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// A request that is cancelled or fails leaves its manager's batch at once: the bar reads the
/// requests that still run, never the failed one's missing bytes as done. Two requests of 100
/// bytes each: the survivor has read 20 of its 100 in the root manager; the other runs in a
/// screen's scope, and nobody keeps anything of it but the task that reads it.
@Suite struct FailedRequestProgressTests {
    private let harness = MiddlewareHarness()
    private let screen: NetworkIndicatorManager
    private let screensMiddleware: NetworkActivityMiddleware

    init() {
        screen = NetworkIndicatorManager(parent: harness.manager, label: "screen")
        screensMiddleware = NetworkActivityMiddleware(
            manager: screen,
            unreadBodyTimeout: MiddlewareHarness.unreadTimeout
        )
    }

    /// Starts the survivor: a body of 100 bytes, 20 of them read. Keep what it returns until the
    /// end of the test.
    private func startSurvivor() async throws -> (ManualBody, HTTPBody.Iterator) {
        let survivor = ManualBody(length: .known(100))
        var iterator = try #require(try await harness.respond(with: survivor.body)).makeAsyncIterator()
        survivor.send(String(repeating: "s", count: 20))
        _ = try await iterator.next()
        return (survivor, iterator)
    }

    /// Starts the screen's request, whose body a detached reader reads to its end; returns once
    /// 50 of its 100 bytes are read and the reader waits for more.
    private func startScreensRead() async throws -> (ManualBody, Task<Int, any Error>) {
        let manual = ManualBody(length: .known(100))
        let middleware = screensMiddleware
        let (_, body) = try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing"
        ) { _, _, _ in (HTTPResponse(status: .ok), manual.body) }
        let reader = Task { [body] in
            var count = 0
            for try await chunk in body ?? HTTPBody() { count += chunk.count }
            return count
        }
        await manual.readRequested()
        manual.send(String(repeating: "x", count: 50))
        await manual.readRequested()  // the 50 bytes are counted; the next read waits
        return (manual, reader)
    }

    @Test func aRequestCancelledByItsScopeWhileItsBodyIsReadLeavesTheBatchAtOnce() async throws {
        let (survivor, survivorIterator) = try await startSurvivor()
        let (manual, reader) = try await startScreensRead()
        let before = harness.manager.progressSnapshot().fractionCompleted
        screen.cancelNetworkTasks()
        // At once: the screen's reader is still waiting for its read.
        let afterTheCancel = harness.manager.progressSnapshot().fractionCompleted
        manual.continuation.finish()
        _ = try? await reader.value
        #expect(before == 0.35, "50 + 20 of 200")
        #expect(afterTheCancel == 0.2, "the survivor alone; 0.6 would count the cancelled request as done")
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0.2)
        survivor.continuation.finish()
        withExtendedLifetime(survivorIterator) {}
    }

    @Test func aRequestCancelledByItsScopeWhileUploadingLeavesTheBatchAtOnce() async throws {
        let (survivor, survivorIterator) = try await startSurvivor()
        let (uploading, uploadingContinuation) = AsyncStream<Void>.makeStream()
        let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
        let upload = HTTPBody(Array(repeating: UInt8(0x61), count: 100), length: .known(100))
        let middleware = screensMiddleware
        let call = Task {
            try await middleware.intercept(
                HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
                body: upload,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "upload"
            ) { _, body, _ in
                if let body { for try await _ in body { break } }
                uploadingContinuation.yield()
                // A transport that ignores cancellation: it answers when the test says so.
                for await _ in gate { break }
                return (HTTPResponse(status: .ok), nil)
            }
        }
        for await _ in uploading { break }
        let before = harness.manager.progressSnapshot().fractionCompleted
        screen.cancelNetworkTasks()
        let afterTheCancel = harness.manager.progressSnapshot().fractionCompleted
        gateContinuation.yield()
        await #expect(throws: CancellationError.self) { _ = try await call.value }
        #expect(before != nil && before != 0.2, "the upload counts while it runs")
        #expect(afterTheCancel == 0.2, "the survivor alone, not the cancelled upload as done")
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0.2)
        survivor.continuation.finish()
        withExtendedLifetime(survivorIterator) {}
    }

    @Test func aResponseBodyThatFailsMidStreamLeavesTheBatch() async throws {
        let (survivor, survivorIterator) = try await startSurvivor()
        let (manual, reader) = try await startScreensRead()
        manual.continuation.finish(throwing: ReadFailure())
        await #expect(throws: ReadFailure.self) { _ = try await reader.value }
        #expect(screen.activeTaskCount == 0)
        #expect(
            harness.manager.progressSnapshot().fractionCompleted == 0.2,
            "the survivor alone; 0.6 would count the failure as done"
        )
        survivor.continuation.finish()
        withExtendedLifetime(survivorIterator) {}
    }

    @Test func aRequestWhoseTransportThrowsLeavesTheBatch() async throws {
        let (survivor, survivorIterator) = try await startSurvivor()
        let upload = HTTPBody(Array(repeating: UInt8(0x61), count: 100), length: .known(100))
        let middleware = screensMiddleware
        await #expect(throws: TransportFailure.self) {
            _ = try await middleware.intercept(
                HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
                body: upload,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "upload"
            ) { _, body, _ in
                if let body { for try await _ in body {} }  // all of it sent, then no answer
                throw TransportFailure()
            }
        }
        #expect(
            harness.manager.progressSnapshot().fractionCompleted == 0.2,
            "the survivor alone, not the failed upload as done"
        )
        survivor.continuation.finish()
        withExtendedLifetime(survivorIterator) {}
    }
}
