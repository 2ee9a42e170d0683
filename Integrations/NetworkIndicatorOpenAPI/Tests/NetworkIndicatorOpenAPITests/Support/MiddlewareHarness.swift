import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime

@testable import NetworkIndicatorOpenAPI

/// A manager on a manual scheduler, a middleware on the same scheduler, and every diagnostic the
/// manager reported: a finish that matched no open task (a task ended twice) shows up here.
struct MiddlewareHarness: Sendable {
    static let unreadTimeout: TimeInterval = 30

    let scheduler = ManualNetworkIndicatorScheduler()
    let manager: NetworkIndicatorManager
    let middleware: NetworkActivityMiddleware
    private let reported = LockedValue<[NetworkIndicatorDiagnostic]>([])

    init(
        unreadBodyTimeout: TimeInterval? = Self.unreadTimeout,
        label: (@Sendable (String) -> String?)? = nil,
        countsOperation: @escaping @Sendable (String) -> Bool = { _ in true },
        countsRequest: @escaping @Sendable (HTTPRequest, String) -> Bool = { _, _ in true }
    ) {
        let reported = reported
        manager = NetworkIndicatorManager(scheduler: scheduler) { diagnostic in
            reported.withLock { $0.append(diagnostic) }
        }
        middleware = NetworkActivityMiddleware(
            manager: manager,
            unreadBodyTimeout: unreadBodyTimeout,
            label: label ?? { $0 },
            countsOperation: countsOperation,
            countsRequest: countsRequest
        )
    }

    var count: Int { manager.activeTaskCount }

    var diagnostics: [NetworkIndicatorDiagnostic] { reported.withLock { $0 } }

    /// Runs the middleware with a `next` that answers `body` (with `status`, 200 unless told, and
    /// `headerFields`), and returns the body the middleware handed on.
    func respond(
        with body: HTTPBody?,
        status: HTTPResponse.Status = .ok,
        headerFields: HTTPFields = [:],
        request: HTTPRequest = Self.request,
        operationID: String = "getThing",
        whileRunning: @escaping @Sendable () -> Void = {}
    ) async throws -> HTTPBody? {
        let (_, responseBody) = try await middleware.intercept(
            request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: operationID
        ) { _, _, _ in
            whileRunning()
            return (HTTPResponse(status: status, headerFields: headerFields), body)
        }
        return responseBody
    }

    /// The request ``respond(with:status:headerFields:request:operationID:whileRunning:)`` sends unless
    /// told otherwise.
    static let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/thing")

    /// Runs the middleware with a `next` that throws `error`.
    func fail(with error: any Error) async throws {
        _ = try await middleware.intercept(
            HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/thing"),
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing"
        ) { _, _, _ in throw error }
    }
}

/// A streamed body whose chunks, end and failure the test sends by hand, and which tells when a
/// reader asks for bytes (so that a test knows a read is pending without sleeping).
struct ManualBody {
    let body: HTTPBody
    let continuation: AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.Continuation
    private let reads: AsyncStream<Void>

    init(length: HTTPBody.Length = .unknown) {
        let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
        let (reads, readsContinuation) = AsyncStream<Void>.makeStream()
        self.body = HTTPBody(
            ReadReportingSequence(base: stream, reads: readsContinuation),
            length: length,
            iterationBehavior: .single
        )
        self.continuation = continuation
        self.reads = reads
    }

    func send(_ text: String) {
        continuation.yield(ArraySlice(text.utf8))
    }

    /// Returns once a reader has asked for the next bytes (at once for a request made earlier).
    func readRequested() async {
        for await _ in reads { return }
    }
}

/// Reports every `next()` call, then reads its base stream.
private struct ReadReportingSequence: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let base: AsyncThrowingStream<HTTPBody.ByteChunk, any Error>
    let reads: AsyncStream<Void>.Continuation

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), reads: reads)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.Iterator
        let reads: AsyncStream<Void>.Continuation

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            reads.yield()
            return try await base.next()
        }
    }
}

/// A body that can be read many times, each time one chunk and then ``ReadFailure``: a failed
/// read that no released iterator would end by itself.
struct FailingSequence: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    func makeAsyncIterator() -> Iterator {
        Iterator()
    }

    struct Iterator: AsyncIteratorProtocol {
        var sentChunk = false

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard sentChunk else {
                sentChunk = true
                return ArraySlice("partial".utf8)
            }
            throw ReadFailure()
        }
    }
}

struct ReadFailure: Error, Equatable {}
struct TransportFailure: Error, Equatable {}

/// A body whose reads wait until their task is cancelled and then throw `CancellationError`, as
/// `URLSession`'s bytes do. It can be read many times, so that releasing an iterator ends
/// nothing by itself.
struct CancellationThrowingBody {
    let body: HTTPBody
    private let reads: AsyncStream<Void>

    init() {
        let (reads, readsContinuation) = AsyncStream<Void>.makeStream()
        self.body = HTTPBody(Bytes(reads: readsContinuation), length: .unknown, iterationBehavior: .multiple)
        self.reads = reads
    }

    /// Returns once a reader has asked for bytes.
    func readRequested() async {
        for await _ in reads { return }
    }

    private struct Bytes: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk

        let reads: AsyncStream<Void>.Continuation

        func makeAsyncIterator() -> Iterator {
            Iterator(reads: reads)
        }

        struct Iterator: AsyncIteratorProtocol {
            let reads: AsyncStream<Void>.Continuation

            mutating func next() async throws -> HTTPBody.ByteChunk? {
                reads.yield()
                // A stream that nothing feeds: its iteration returns when the task is cancelled.
                let (never, continuation) = AsyncStream<Void>.makeStream()
                for await _ in never {}
                withExtendedLifetime(continuation) {}
                try Task.checkCancellation()
                return nil
            }
        }
    }
}
