import Benchmark
import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorOpenAPI
import NetworkIndicatorTesting
import OpenAPIRuntime

// Section 8 of ../../README.md: what `NetworkActivityMiddleware` adds to one request, read to
// the end, over a transport that answers from memory at once (so that nothing but the client's
// own work is measured), beside the same transport called directly. One operation is one
// request: `intercept` (or `send`), then every chunk of its body read.

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,
        warmupIterations: 5,
        scalingFactor: .kilo,
        maxDuration: .seconds(2),
        maxIterations: 1_000
    )

    // A 204 (a DELETE's usual answer) ends at its headers: no unread-body timer is made, which
    // the scheduler's count of timers shows after the run.
    Benchmark("8 OpenAPI: a 204 through the middleware, manual scheduler") { benchmark in
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let middleware = NetworkActivityMiddleware(manager: manager)
        let transport = CannedTransport(chunks: 0, status: .noContent)
        for _ in benchmark.scaledIterations {
            blackHole(try await transport.request(through: middleware))
        }
        precondition(scheduler.scheduledTimerCount == 0, "a 204 made an unread-body timer")
    }

    Benchmark("8 OpenAPI: a 204 through the middleware, main queue") { benchmark in
        let middleware = NetworkActivityMiddleware(manager: NetworkIndicatorManager())
        let transport = CannedTransport(chunks: 0, status: .noContent)
        for _ in benchmark.scaledIterations {
            blackHole(try await transport.request(through: middleware))
        }
    }

    for chunks in [1, 64] {
        let transport = CannedTransport(chunks: chunks)

        Benchmark("8 OpenAPI: bare transport, \(chunks) chunks") { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try await transport.request())
            }
        }

        Benchmark("8 OpenAPI: through the middleware, \(chunks) chunks, manual scheduler") { benchmark in
            let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let middleware = NetworkActivityMiddleware(manager: manager)
            for _ in benchmark.scaledIterations {
                blackHole(try await transport.request(through: middleware))
            }
        }

        // The production scheduler: each body's unread timer is a main-queue DispatchSourceTimer,
        // made and cancelled; the manager's hops wait on the main queue (one at a time).
        Benchmark("8 OpenAPI: through the middleware, \(chunks) chunks, main queue") { benchmark in
            let manager = NetworkIndicatorManager()
            let middleware = NetworkActivityMiddleware(manager: manager)
            for _ in benchmark.scaledIterations {
                blackHole(try await transport.request(through: middleware))
            }
        }

        // The same without the unread-body timer: what one timer per body costs, and so what one
        // shared timer could save at most.
        Benchmark("8 OpenAPI: through the middleware, \(chunks) chunks, main queue, no unread timeout") { benchmark in
            let manager = NetworkIndicatorManager()
            let middleware = NetworkActivityMiddleware(manager: manager, unreadBodyTimeout: nil)
            for _ in benchmark.scaledIterations {
                blackHole(try await transport.request(through: middleware))
            }
        }
    }
}

/// A `ClientTransport` that answers every request at once with `status` (200 unless told) and a
/// body of `chunks` chunks of 1 KiB, of known length, served without suspending.
struct CannedTransport: ClientTransport {
    let chunks: [HTTPBody.ByteChunk]
    let length: Int64
    let status: HTTPResponse.Status

    init(chunks: Int, status: HTTPResponse.Status = .ok) {
        self.chunks = Array(repeating: ArraySlice(repeating: 0x61, count: 1_024), count: chunks)
        self.length = Int64(chunks * 1_024)
        self.status = status
    }

    static let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/thing")
    static let baseURL = URL(string: "http://127.0.0.1")!

    func send(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        // A 204 comes as swift-openapi-urlsession hands it: an empty body of unknown length.
        let length: HTTPBody.Length = status == .noContent ? .unknown : .known(length)
        let body = HTTPBody(Chunks(chunks: chunks), length: length, iterationBehavior: .single)
        return (HTTPResponse(status: status), body)
    }

    /// One request straight to the transport, its body read to the end; returns the bytes read.
    func request() async throws -> Int {
        let (_, body) = try await send(Self.request, body: nil, baseURL: Self.baseURL, operationID: "getThing")
        return try await Self.read(body)
    }

    /// One request through `middleware`, its body read to the end; returns the bytes read.
    func request(through middleware: NetworkActivityMiddleware) async throws -> Int {
        let (_, body) = try await middleware.intercept(
            Self.request,
            body: nil,
            baseURL: Self.baseURL,
            operationID: "getThing"
        ) { request, body, baseURL in
            try await send(request, body: body, baseURL: baseURL, operationID: "getThing")
        }
        return try await Self.read(body)
    }

    private static func read(_ body: HTTPBody?) async throws -> Int {
        guard let body else { return 0 }
        var count = 0
        for try await chunk in body { count += chunk.count }
        return count
    }
}

/// Chunks served from memory without suspending.
private struct Chunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let chunks: [HTTPBody.ByteChunk]

    func makeAsyncIterator() -> Iterator {
        Iterator(chunks: chunks[...])
    }

    struct Iterator: AsyncIteratorProtocol {
        var chunks: ArraySlice<HTTPBody.ByteChunk>

        mutating func next() async -> HTTPBody.ByteChunk? {
            chunks.popFirst()
        }
    }
}
