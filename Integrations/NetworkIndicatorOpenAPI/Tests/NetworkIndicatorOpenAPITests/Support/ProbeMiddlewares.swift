import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime

@testable import NetworkIndicatorOpenAPI

/// Records the manager's count while the transport runs: placed after the activity middleware,
/// it sees what the transport sees.
struct CountProbeMiddleware: ClientMiddleware {
    let manager: NetworkIndicatorManager
    let counts = LockedValue<[Int]>([])

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let count = manager.activeTaskCount
        counts.withLock { $0.append(count) }
        return try await next(request, body, baseURL)
    }
}

/// Hands the response body on in slices of at most `size` bytes, keeping its length and
/// iteration behaviour. `URLSessionTransport` streams on Apple platforms but buffers on Linux,
/// where a body arrives as one chunk; placed after the activity middleware (nearer the
/// transport), this makes the Linux body arrive in many chunks too, as a streaming transport's
/// would, so that the test follows the indicator chunk by chunk on every platform.
struct SlicingMiddleware: ClientMiddleware {
    let size: Int

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard let responseBody else { return (response, nil) }
        return (
            response,
            HTTPBody(
                SlicedBody(base: responseBody, size: size),
                length: responseBody.length,
                iterationBehavior: responseBody.iterationBehavior
            )
        )
    }
}

/// The bytes of `base` in slices of at most `size` bytes.
private struct SlicedBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let base: HTTPBody
    let size: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(base: base.makeAsyncIterator(), size: size)
    }

    struct Iterator: AsyncIteratorProtocol {
        var base: HTTPBody.Iterator
        let size: Int
        var rest: HTTPBody.ByteChunk = []

        mutating func next() async throws -> HTTPBody.ByteChunk? {
            while rest.isEmpty {
                guard let chunk = try await base.next() else { return nil }
                rest = chunk
            }
            let slice = rest.prefix(size)
            rest = rest.dropFirst(size)
            return slice
        }
    }
}
