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
                    let fraction = harness.manager.progressSnapshot().fractionCompleted
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
        let values = fractions.compactMap { $0 }
        #expect(values.count == 3)
        #expect(values == values.sorted() && Set(values).count == 3, "it grows with each chunk")
        #expect(values.allSatisfy { $0 > 0 && $0 < 0.01 }, "a small upload leaves the response most of the bar")
        #expect(sent == "abcdefghij", "the transport reads the same bytes")
    }

    /// A transport that reads the whole body before it sends a byte (the buffered one) moves the
    /// bar only to the upload's share: the response's share is reserved from the start.
    @Test func largeRequestBodyFillsOnlyHalfTheBarBeforeTheResponse() async throws {
        let harness = MiddlewareHarness()
        let chunk = ArraySlice(repeating: UInt8(0x61), count: 25_000)
        let body = HTTPBody(
            Chunks(chunks: Array(repeating: chunk, count: 4)),
            length: .known(100_000),
            iterationBehavior: .multiple
        )
        let (fractions, _, _) = try await send(body, in: harness)
        #expect(fractions == [0.125, 0.25, 0.375, 0.5])
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

    @Test func emptyRequestBodyIsHandedOnUntouched() async throws {
        let harness = MiddlewareHarness()
        let empty = HTTPBody()
        let handedOn = LockedValue<HTTPBody?>(nil)
        _ = try await harness.middleware.intercept(
            HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
            body: empty,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "upload"
        ) { _, body, _ in
            handedOn.withLock { $0 = body }
            return (HTTPResponse(status: .noContent), nil)
        }
        #expect(handedOn.withLock { $0 } === empty, "nothing to count: not wrapped")
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
            let now = harness.manager.progressSnapshot().fractionCompleted
            handedOn.withLock { $0 = body }
            fraction.withLock { $0 = now }
            return (HTTPResponse(status: .ok), nil)
        }
        #expect(handedOn.withLock { $0 } === body)
        #expect(fraction.withLock { $0 } == nil)
    }

    /// One request's fraction only grows, from its first byte sent to its last byte read, and
    /// reaches 1 only when its response body has ended (its task then ends: the bar is idle).
    @Test func oneRequestsFractionOnlyGrowsAndIsNeverFullBeforeItsBodyEnds() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(30))
        let (whileSending, _, response) = try await send(requestBody(), in: harness, answering: manual.body)
        var fractions = whileSending
        var iterator = try #require(response).makeAsyncIterator()
        fractions.append(harness.manager.progressSnapshot().fractionCompleted)
        for _ in 0..<2 {
            manual.send(String(repeating: "x", count: 15))
            _ = try await iterator.next()
            fractions.append(harness.manager.progressSnapshot().fractionCompleted)
        }
        manual.continuation.finish()
        let last = try await iterator.next()
        let values = fractions.compactMap { $0 }
        #expect(values.count == 6, "determinate from the first byte sent: \(fractions)")
        #expect(values == values.sorted(), "never falls: \(values)")
        #expect(values.allSatisfy { $0 < 1 }, "never full before the end: \(values)")
        #expect(Array(values.suffix(2)) == [0.625, 39.0 / 40], "10 + 15 of 40, then all but the end")
        #expect(last == nil)
        #expect(harness.manager.progressSnapshot().fractionCompleted == nil, "the request ended")
    }

    @Test func responseOfUnknownLengthAfterAnUploadHoldsTheUploadsShare() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let (whileSending, _, response) = try await send(requestBody(), in: harness, answering: manual.body)
        let afterTheResponse = harness.manager.progressSnapshot().fractionCompleted
        var iterator = try #require(response).makeAsyncIterator()
        manual.send("some bytes")
        _ = try await iterator.next()
        #expect(afterTheResponse != nil && afterTheResponse == whileSending.last, "neither falls nor vanishes")
        #expect(harness.manager.progressSnapshot().fractionCompleted == afterTheResponse)
        manual.continuation.finish()
    }

    @Test func hugeContentLengthAfterAnUploadNeitherTrapsNorFalls() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let (whileSending, _, response) = try await send(
            requestBody(),
            in: harness,
            answering: manual.body,
            headerFields: [.contentLength: String(Int64.max)]
        )
        let afterTheResponse = try #require(harness.manager.progressSnapshot().fractionCompleted)
        #expect(afterTheResponse >= (whileSending.last ?? nil) ?? 1)
        #expect(afterTheResponse < 1)
        manual.continuation.finish()
        withExtendedLifetime(response) {}
    }

    /// The upload was the request's whole work: answered with no body (a response of known
    /// length 0), it counts as done in its batch, weighing its own bytes.
    @Test func uploadAnsweredWithoutABodyCountsAsDone() async throws {
        let harness = MiddlewareHarness()
        let other = harness.manager.beganNetworkTask(
            label: "other",
            progress: NetworkActivityProgress(totalUnitCount: 100)
        )
        _ = try await send(requestBody(), in: harness, answering: nil)
        #expect(harness.manager.progressSnapshot().fractionCompleted == 10.0 / 110)
        withExtendedLifetime(other) {}
    }

    /// A chat-style upload answered with a live feed counts until its headers: it weighs its
    /// upload, all done, as an upload answered without a body does (not the response's reserve).
    @Test func uploadAnsweredWithALiveFeedWeighsItsOwnBytes() async throws {
        let harness = MiddlewareHarness()
        let download = NetworkActivityProgress(totalUnitCount: 20)
        download.completedUnitCount = 5
        let other = harness.manager.beganNetworkTask(label: "download", progress: download)
        let feed = ManualBody()
        let (_, _, response) = try await send(
            requestBody(),
            in: harness,
            answering: feed.body,
            headerFields: [.contentType: "text/event-stream"]
        )
        #expect(harness.manager.progressSnapshot().fractionCompleted == 15.0 / 30, "10 of 10 beside 5 of 20")
        feed.continuation.finish()
        withExtendedLifetime((other, response)) {}
    }

    /// A response of unknown length read to its end: the request weighs its upload and the
    /// bytes read, all done, not the reserve that stood for the response while it ran.
    @Test func responseOfUnknownLengthReadToItsEndWeighsTheBytesRead() async throws {
        let harness = MiddlewareHarness()
        let download = NetworkActivityProgress(totalUnitCount: 20)
        download.completedUnitCount = 5
        let other = harness.manager.beganNetworkTask(label: "download", progress: download)
        let manual = ManualBody(length: .unknown)
        let (_, _, response) = try await send(requestBody(), in: harness, answering: manual.body)
        manual.send("{}")
        manual.continuation.finish()
        _ = try await String(collecting: try #require(response), upTo: 100)
        #expect(harness.count == 1, "only the download")
        #expect(harness.manager.progressSnapshot().fractionCompleted == 17.0 / 32, "10 + 2 of 12 beside 5 of 20")
        withExtendedLifetime(other) {}
    }

    /// A response of unknown length that nobody reads ends at the unread-body timeout short of
    /// its end: the request leaves its batch instead of counting as done.
    @Test func unreadResponseOfUnknownLengthAfterAnUploadLeavesTheBatchAtTheTimeout() async throws {
        let harness = MiddlewareHarness()
        let other = harness.manager.beganNetworkTask(
            label: "other",
            progress: NetworkActivityProgress(totalUnitCount: 100)
        )
        let manual = ManualBody(length: .unknown)
        let (_, _, response) = try await send(requestBody(), in: harness, answering: manual.body)
        let whileKept = harness.manager.progressSnapshot().fractionCompleted
        await MainActor.run { harness.scheduler.advance(by: MiddlewareHarness.unreadTimeout) }
        #expect(harness.count == 1, "only the other task")
        #expect(whileKept.map { $0 > 0 } == true)
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0, "the other task's 0 of 100 alone")
        manual.continuation.finish()
        withExtendedLifetime((other, response)) {}
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
        #expect(
            harness.manager.progressSnapshot().fractionCompleted == 0.625,
            "10 + 15 of 40: the late read moved nothing"
        )
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
