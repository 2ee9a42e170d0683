import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// What a generated client meets at HTTP's edges: responses that cannot have a body, live feeds
/// of every media type a client decodes as a sequence, and a screen's cancel of such a feed.
@Suite struct HTTPEdgeTests {
    /// A response that cannot have a body ends at its headers, whatever body the transport hands
    /// back (swift-openapi-urlsession answers a 204 with an empty body of unknown length, and a
    /// HEAD with the resource's length and no bytes) and whether or not anyone reads it.
    @Test(arguments: [
        (HTTPResponse.Status.noContent, HTTPRequest.Method.delete),
        (.resetContent, .post),
        (.notModified, .get),
        (.init(code: 103), .get),
        (.ok, .head),
        (.notFound, .head),
    ])
    func responseThatCannotHaveABodyEndsAtItsHeaders(
        status: HTTPResponse.Status,
        method: HTTPRequest.Method
    ) async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: method == .head ? .known(500) : .unknown)
        let body = try await harness.respond(
            with: manual.body,
            status: status,
            // swift-openapi-urlsession's 204 has no Content-Length; a HEAD has the resource's.
            headerFields: method == .head ? [.contentLength: "500"] : [:],
            request: HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1", path: "/items/7")
        )
        #expect(harness.count == 0, "the spinner is off once the headers are here")
        #expect(harness.scheduler.scheduledTimerCount == 0, "no unread-body timer for a body that cannot come")
        #expect(body === manual.body, "the body is handed on untouched")
        #expect(harness.diagnostics.isEmpty, "its task ended once")
        manual.continuation.finish()
    }

    /// A `Content-Length: 0` says there is no body, though the body's own length is unknown.
    @Test func responseWhoseContentLengthIsZeroEndsAtItsHeaders() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        _ = try await harness.respond(with: manual.body, headerFields: [.contentLength: "0"])
        #expect(harness.count == 0)
        #expect(harness.scheduler.scheduledTimerCount == 0)
        manual.continuation.finish()
    }

    /// Zero encoded bytes decode to none: a `Content-Length: 0` under a `Content-Encoding` ends
    /// the task at its headers too, with no timer, and the body is handed on untouched.
    @Test func encodedResponseWhoseContentLengthIsZeroEndsAtItsHeaders() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let body = try await harness.respond(
            with: manual.body,
            headerFields: [.contentLength: "0", .contentEncoding: "gzip"]
        )
        #expect(harness.count == 0)
        #expect(harness.scheduler.scheduledTimerCount == 0)
        #expect(body === manual.body)
        manual.continuation.finish()
    }

    @Test func okAnsweringAGetStillCountsUntilItsBodyEnds() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let body = try #require(try await harness.respond(with: manual.body, status: .ok))
        #expect(harness.count == 1)
        manual.continuation.finish()
        _ = try await String(collecting: body, upTo: 10)
        #expect(harness.count == 0)
    }

    /// A bodiless answer is a response of known length 0: an upload answered 204 counts as done,
    /// weighing its own bytes, beside the other work of its batch.
    @Test func uploadAnsweredNoContentCountsAsDoneWeighingItsBytes() async throws {
        let harness = MiddlewareHarness()
        let download = NetworkActivityProgress(totalUnitCount: 20)
        download.completedUnitCount = 5
        let other = harness.manager.beganNetworkTask(label: "download", progress: download)
        let upload = HTTPBody(Array(repeating: UInt8(0x61), count: 10), length: .known(10))
        _ = try await harness.middleware.intercept(
            HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1", path: "/items/7"),
            body: upload,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "putItem"
        ) { _, body, _ in
            if let body { _ = try await String(collecting: body, upTo: 100) }
            return (HTTPResponse(status: .noContent), HTTPBody())
        }
        #expect(harness.count == 1, "only the download")
        #expect(harness.manager.progressSnapshot().fractionCompleted == 15.0 / 30.0, "10 of 10 and 5 of 20")
        withExtendedLifetime(other) {}
    }

    /// Every media type a client reads as a live sequence counts only until its headers.
    @Test(arguments: [
        "text/event-stream", "application/jsonl", "application/json-seq", "application/x-ndjson",
        "Application/JSONL; charset=utf-8",
    ])
    func liveFeedCountsOnlyUntilItsHeaders(contentType: String) async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body, headerFields: [.contentType: contentType]))
        #expect(harness.count == 0, "an open feed does not pin the spinner")
        #expect(harness.scheduler.scheduledTimerCount == 0, "a feed that waits for its next line is not cut")
        let reader = Task { try await String(collecting: body, upTo: 100) }
        manual.send("{\"a\":1}\n")
        manual.continuation.finish()
        #expect(try await reader.value == "{\"a\":1}\n", "the lines pass through")
        #expect(body.length == manual.body.length)
        #expect(body.iterationBehavior == manual.body.iterationBehavior)
        #expect(harness.diagnostics.isEmpty, "its task ended once")
    }

    /// A feed that no longer counts is still its screen's work: the screen's cancel ends the
    /// reader's loop at its next read.
    @Test func screensCancelReachesItsLiveFeed() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(
            try await harness.respond(with: manual.body, headerFields: [.contentType: "application/jsonl"])
        )
        var iterator = body.makeAsyncIterator()
        manual.send("{\"a\":1}\n")
        _ = try await iterator.next()
        harness.manager.cancelNetworkTasks()
        manual.send("{\"a\":2}\n")
        await #expect(throws: CancellationError.self, "the reader's loop ends") {
            _ = try await iterator.next()
        }
        #expect(harness.count == 0)
        #expect(harness.diagnostics.isEmpty)
        manual.continuation.finish()
    }

    /// The cancel reaches the feed of a scope's screen from an ancestor's cancel too.
    @Test func ancestorsCancelReachesAScopesLiveFeed() async throws {
        let harness = MiddlewareHarness()
        let screen = NetworkIndicatorManager(parent: harness.manager, label: "feed screen")
        let middleware = NetworkActivityMiddleware(manager: screen, unreadBodyTimeout: nil)
        let manual = ManualBody()
        let (_, response) = try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "feed"
        ) { _, _, _ in
            (HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"]), manual.body)
        }
        let body = try #require(response)
        harness.manager.cancelNetworkTasks()
        var iterator = body.makeAsyncIterator()
        await #expect(throws: CancellationError.self) { _ = try await iterator.next() }
        manual.continuation.finish()
    }

    /// A feed read to its end is no longer its screen's work: a later cancel leaves a body that
    /// can be read again alone.
    @Test func feedReadToItsEndIsNoLongerCancelled() async throws {
        let harness = MiddlewareHarness()
        let feed = HTTPBody("data: one\n\n", length: .known(11))  // iterationBehavior .multiple
        let body = try #require(
            try await harness.respond(with: feed, headerFields: [.contentType: "text/event-stream"])
        )
        #expect(try await String(collecting: body, upTo: 100) == "data: one\n\n")
        harness.manager.cancelNetworkTasks()
        #expect(try await String(collecting: body, upTo: 100) == "data: one\n\n", "read again, not cancelled")
    }

    /// A feed that failed is no longer its screen's work either.
    @Test func feedThatFailedIsNoLongerCancelled() async throws {
        let harness = MiddlewareHarness()
        let failing = FailingThenReadableBody()
        let body = try #require(
            try await harness.respond(with: failing.body, headerFields: [.contentType: "application/jsonl"])
        )
        await #expect(throws: TransportFailure.self) { _ = try await String(collecting: body, upTo: 100) }
        harness.manager.cancelNetworkTasks()
        #expect(try await String(collecting: body, upTo: 100) == "{}\n", "read again, not cancelled")
    }
}

/// A body that can be read many times, whose first read fails and whose later reads return
/// `{}` and a newline.
private struct FailingThenReadableBody {
    private final class Reads: Sendable {
        let count = LockedValue(0)
    }

    private struct Lines: AsyncSequence, Sendable {
        typealias Element = HTTPBody.ByteChunk
        let reads: Reads

        func makeAsyncIterator() -> Iterator {
            Iterator(
                isFirst: reads.count.withLock { count in
                    defer { count += 1 }
                    return count == 0
                }
            )
        }

        struct Iterator: AsyncIteratorProtocol {
            let isFirst: Bool
            var isDone = false

            mutating func next() async throws -> HTTPBody.ByteChunk? {
                if isFirst { throw TransportFailure() }
                guard !isDone else { return nil }
                isDone = true
                return ArraySlice("{}\n".utf8)
            }
        }
    }

    let body = HTTPBody(Lines(reads: Reads()), length: .unknown, iterationBehavior: .multiple)
}
