import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// How a request body of known length feeds the manager's `fractionCompleted` while the
/// transport reads it, and how the response's bytes follow it.
@Suite struct UploadProgressTests {
    private static let upload = ["abcd", "efgh", "ij"]

    private func requestBody(length: HTTPBody.Length = .known(10)) -> HTTPBody {
        HTTPBody(Chunks(chunks: Self.upload.map { ArraySlice($0.utf8) }), length: length, iterationBehavior: .multiple)
    }

    /// Runs the middleware with a `next` that reads the request body chunk by chunk (recording
    /// the fraction after each) and answers `response`.
    private func send(
        _ body: HTTPBody?,
        in harness: MiddlewareHarness,
        answering response: HTTPBody? = nil,
        headerFields: HTTPFields = [:]
    ) async throws -> (fractions: [Double?], sent: String, response: HTTPBody?) {
        let fractions = LockedValue<[Double?]>([])
        let sent = LockedValue("")
        let (_, responseBody) = try await harness.middleware.intercept(
            HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
            body: body,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "upload"
        ) { _, body, _ in
            if let body {
                for try await chunk in body {
                    let fraction = harness.manager.fractionCompleted
                    fractions.withLock { $0.append(fraction) }
                    sent.withLock { $0 += String(decoding: chunk, as: UTF8.self) }
                }
            }
            return (HTTPResponse(status: .ok, headerFields: headerFields), response)
        }
        return (fractions.withLock { $0 }, sent.withLock { $0 }, responseBody)
    }

    @Test func requestBodyOfKnownLengthAdvancesTheFractionAsTheTransportReadsIt() async throws {
        let harness = MiddlewareHarness()
        let (fractions, sent, _) = try await send(requestBody(), in: harness)
        #expect(fractions == [0.4, 0.8, 1])
        #expect(sent == "abcdefghij", "the transport reads the same bytes")
    }

    @Test func requestBodyIsHandedOnWithItsLengthAndIterationBehavior() async throws {
        let harness = MiddlewareHarness()
        let seen = LockedValue<(HTTPBody.Length, IterationBehavior)?>(nil)
        _ = try await harness.middleware.intercept(
            HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
            body: requestBody(),
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "upload"
        ) { _, body, _ in
            let shape = body.map { ($0.length, $0.iterationBehavior) }
            seen.withLock { $0 = shape }
            return (HTTPResponse(status: .ok), nil)
        }
        let shape = try #require(seen.withLock { $0 })
        #expect(shape.0 == .known(10))
        #expect(shape.1 == .multiple)
    }

    @Test func requestBodyOfUnknownLengthIsHandedOnUntouchedAndStaysIndeterminate() async throws {
        let harness = MiddlewareHarness()
        let body = requestBody(length: .unknown)
        let handedOn = LockedValue<HTTPBody?>(nil)
        let fraction = LockedValue<Double?>(0)
        _ = try await harness.middleware.intercept(
            HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
            body: body,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "upload"
        ) { _, body, _ in
            let now = harness.manager.fractionCompleted
            handedOn.withLock { $0 = body }
            fraction.withLock { $0 = now }
            return (HTTPResponse(status: .ok), nil)
        }
        #expect(handedOn.withLock { $0 } === body)
        #expect(fraction.withLock { $0 } == nil)
    }

    @Test func responseBytesFollowTheUploadInOneTotal() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(30))
        let (_, _, response) = try await send(requestBody(), in: harness, answering: manual.body)
        let body = try #require(response)
        let afterTheResponse = harness.manager.fractionCompleted
        var iterator = body.makeAsyncIterator()
        manual.send(String(repeating: "x", count: 15))
        _ = try await iterator.next()
        let halfway = harness.manager.fractionCompleted
        manual.continuation.finish()
        #expect(afterTheResponse == 0.25, "10 bytes sent of 10 + 30")
        #expect(halfway == 0.625, "10 + 15 of 40")
    }

    @Test func responseOfUnknownLengthAfterAnUploadIsIndeterminate() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let (_, _, response) = try await send(requestBody(), in: harness, answering: manual.body)
        #expect(harness.manager.fractionCompleted == nil)
        manual.continuation.finish()
        withExtendedLifetime(response) {}
    }

    @Test func readsOfTheRequestBodyAfterTheResponseNoLongerCount() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(30))
        let kept = LockedValue<HTTPBody?>(nil)
        let (_, response) = try await harness.middleware.intercept(
            HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
            body: requestBody(),
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "upload"
        ) { _, body, _ in
            kept.withLock { $0 = body }  // a transport that answers before it reads the body
            return (HTTPResponse(status: .ok), manual.body)
        }
        var iterator = try #require(response).makeAsyncIterator()
        manual.send(String(repeating: "x", count: 15))
        _ = try await iterator.next()
        _ = try await String(collecting: try #require(kept.withLock { $0 }), upTo: 100)
        #expect(harness.manager.fractionCompleted == 0.625, "10 + 15 of 40: the late read moved nothing")
        manual.continuation.finish()
    }
}

/// A body of known chunks, which can be read many times.
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
