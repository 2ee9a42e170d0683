import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

@testable import NetworkIndicatorOpenAPI

/// The middleware in a client generated from `OpenAPI/openapi.yaml`, over `URLSessionTransport`,
/// against a real server on 127.0.0.1.
@Suite struct GeneratedClientTests {
    private let server: LoopbackAPIServer
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager
    private let probe: CountProbeMiddleware

    init() throws {
        server = try LoopbackAPIServer()
        manager = NetworkIndicatorManager(scheduler: scheduler)
        probe = CountProbeMiddleware(manager: manager)
    }

    /// The activity middleware first (outermost), then the given middlewares.
    private func client(_ inner: [any ClientMiddleware] = []) -> Client {
        Client(
            serverURL: server.baseURL,
            transport: URLSessionTransport(),
            middlewares: [NetworkActivityMiddleware(manager: manager)] + inner
        )
    }

    @Test func jsonRequestCountsWhileInFlightAndEndsWhenDecoded() async throws {
        let output = try await client([probe]).getGreeting(query: .init(name: "indicator"))
        #expect(try output.ok.body.json.message == "Hello, indicator")
        #expect(probe.counts.withLock { $0 } == [1])
        #expect(manager.activeTaskCount == 0)
    }

    @Test func streamedBodyIsFollowedToItsLastByte() async throws {
        let chunks = 6
        let output = try await client([SlicingMiddleware(size: 7)]).getStream(query: .init(chunks: chunks))
        let body = try output.ok.body.binary
        var iterator = body.makeAsyncIterator()
        var bytes: [UInt8] = []
        var countsAfterEachChunk: [Int] = []
        while let chunk = try await iterator.next() {
            bytes += chunk
            countsAfterEachChunk.append(manager.activeTaskCount)
        }
        let expected = (0..<chunks).map(LoopbackAPIServer.chunk).joined()
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(countsAfterEachChunk.count > chunks)
        #expect(countsAfterEachChunk.allSatisfy { $0 == 1 })
        #expect(manager.activeTaskCount == 0)
    }

    @Test func jsonResponseOfKnownLengthCountsAsCompleteOnceDecoded() async throws {
        // Another download of one unit, not started, keeps the batch running (lock-guarded, so
        // read on this thread: a plain `Progress` is read on the main queue only).
        let other = manager.beganNetworkTask(label: "other", progress: NetworkActivityProgress(totalUnitCount: 1))
        _ = try await client().getGreeting(query: .init(name: "indicator")).ok.body.json
        let progress = manager.progressSnapshot()
        #expect(progress.totalUnitCount > 1, "the response's bytes joined the batch")
        #expect(progress.completedUnitCount == progress.totalUnitCount - 1, "all of them, done")
        withExtendedLifetime(other) {}
    }

    @Test func chunkedStreamOfUnknownLengthStaysIndeterminate() async throws {
        let busy = manager.beganNetworkTask(label: "keeps the scope busy")
        let body = try await client().getStream(query: .init(chunks: 3)).ok.body.binary
        var fractions: [Double?] = []
        for try await _ in body {
            fractions.append(manager.progressSnapshot().fractionCompleted)
        }
        #expect(!fractions.isEmpty)
        #expect(fractions.allSatisfy { $0 == nil })
        withExtendedLifetime(busy) {}
    }

    @MainActor
    @Test func undocumentedResponseKeptUnreadEndsAfterTheTimeout() async throws {
        let output = try await client().getGreeting(query: .init(name: "missing"))
        guard case .undocumented(let status, let payload) = output else {
            Issue.record("expected an undocumented response, got \(output)")
            return
        }
        let countWhileKept = manager.activeTaskCount
        scheduler.advance(by: NetworkActivityMiddleware.defaultUnreadBodyTimeout)
        #expect(status == 404)
        #expect(countWhileKept == 1)
        #expect(manager.activeTaskCount == 0)
        withExtendedLifetime(payload) {}
    }

    @Test func unreachableServerEndsTheTaskAndRethrows() async throws {
        // Port 1 on loopback: nothing listens there, the connection is refused.
        let closed = Client(
            serverURL: URL(string: "http://127.0.0.1:1")!,
            transport: URLSessionTransport(),
            middlewares: [NetworkActivityMiddleware(manager: manager)]
        )
        await #expect(throws: ClientError.self) { _ = try await closed.getGreeting(query: .init(name: "x")) }
        #expect(manager.activeTaskCount == 0)
    }
}
