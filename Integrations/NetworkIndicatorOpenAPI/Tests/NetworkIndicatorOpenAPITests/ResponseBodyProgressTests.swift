import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// How a response body's bytes feed the manager's `fractionCompleted`, through `intercept`
/// called directly with bodies whose chunks the test sends by hand.
@Suite struct ResponseBodyProgressTests {
    /// Reads one chunk after sending `text`, and returns the manager's fraction then.
    private func read(
        _ text: String,
        from manual: ManualBody,
        with iterator: inout HTTPBody.Iterator,
        in harness: MiddlewareHarness
    ) async throws -> Double? {
        manual.send(text)
        _ = try await iterator.next()
        return harness.manager.progressSnapshot().fractionCompleted
    }

    @Test func bodyOfKnownLengthAdvancesTheFractionAfterEachChunk() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(12))
        let body = try #require(try await harness.respond(with: manual.body))
        var iterator = body.makeAsyncIterator()
        var fractions: [Double?] = []
        for chunk in ["abc", "def", "ghi", "jkl"] {
            fractions.append(try await read(chunk, from: manual, with: &iterator, in: harness))
        }
        #expect(fractions == [0.25, 0.5, 0.75, 11.0 / 12], "never full before the body ends")
        manual.continuation.finish()
        #expect(try await iterator.next() == nil)
        #expect(harness.manager.progressSnapshot().fractionCompleted == nil, "idle again")
    }

    @Test func contentLengthHeaderGivesTheTotalWhenTheBodyLengthIsUnknown() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let body = try #require(try await harness.respond(with: manual.body, headerFields: [.contentLength: "10"]))
        var iterator = body.makeAsyncIterator()
        #expect(try await read("abcde", from: manual, with: &iterator, in: harness) == 0.5)
        manual.continuation.finish()
    }

    @Test func bodyOfUnknownLengthDoesNotDiluteOtherProgress() async throws {
        let harness = MiddlewareHarness()
        let other = harness.manager.beganNetworkTask(label: "other", progress: halfDone(of: 100))
        let manual = ManualBody(length: .unknown)
        let body = try #require(try await harness.respond(with: manual.body))
        var iterator = body.makeAsyncIterator()
        #expect(try await read("abcdefgh", from: manual, with: &iterator, in: harness) == 0.5)
        manual.continuation.finish()
        withExtendedLifetime(other) {}
    }

    @Test func requestDoesNotDiluteOtherProgressBeforeItsResponseArrives() async throws {
        let harness = MiddlewareHarness()
        let other = harness.manager.beganNetworkTask(label: "other", progress: halfDone(of: 100))
        let whileWaiting = LockedValue<Double?>(nil)
        _ = try await harness.respond(with: nil) {
            let fraction = harness.manager.progressSnapshot().fractionCompleted
            whileWaiting.withLock { $0 = fraction }
        }
        #expect(whileWaiting.withLock { $0 } == 0.5)
        withExtendedLifetime(other) {}
    }

    @Test func contentLengthOfAnEncodedBodyIsIgnored() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .unknown)
        let headers: HTTPFields = [.contentLength: "10", .contentEncoding: "gzip"]
        let body = try #require(try await harness.respond(with: manual.body, headerFields: headers))
        var iterator = body.makeAsyncIterator()
        #expect(try await read("abcde", from: manual, with: &iterator, in: harness) == nil)
        manual.continuation.finish()
    }

    /// `URLSessionTransport` takes the body's length from `Content-Length`, which counts the
    /// encoded bytes, while the client reads the decoded ones.
    @Test(arguments: ["gzip", "br", " Deflate ", "gzip, identity"])
    func encodedBodyIsIndeterminateEvenWhenItsLengthIsKnown(encoding: String) async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(10))
        let headers: HTTPFields = [.contentLength: "10", .contentEncoding: encoding]
        let body = try #require(try await harness.respond(with: manual.body, headerFields: headers))
        var iterator = body.makeAsyncIterator()
        #expect(try await read("abcdefghij", from: manual, with: &iterator, in: harness) == nil)
        #expect(body.length == .known(10), "the length is handed on unchanged")
        manual.continuation.finish()
    }

    @Test func identityEncodedBodyOfKnownLengthIsDeterminate() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(10))
        let headers: HTTPFields = [.contentLength: "10", .contentEncoding: "identity"]
        let body = try #require(try await harness.respond(with: manual.body, headerFields: headers))
        var iterator = body.makeAsyncIterator()
        #expect(try await read("abcde", from: manual, with: &iterator, in: harness) == 0.5)
        manual.continuation.finish()
    }

    @Test func bodyEndedBeforeItsLastByteEndsItsBatchWhileTheScopeIsBusy() async throws {
        let harness = MiddlewareHarness()
        let busy = harness.manager.beganNetworkTask(label: "keeps the scope busy")
        let manual = ManualBody(length: .known(12))
        let body = try #require(try await harness.respond(with: manual.body))
        var iterator: HTTPBody.Iterator? = body.makeAsyncIterator()
        #expect(try await read("abc", from: manual, with: &iterator!, in: harness) == 0.25)
        iterator = nil  // a single-iteration body released early: its task ends
        #expect(harness.count == 1)
        #expect(harness.manager.progressSnapshot().fractionCompleted == nil, "no full bar while the scope stays busy")
        withExtendedLifetime(busy) {}
    }

    @Test func aBodyReleasedHalfReadLeavesTheBatch() async throws {
        let harness = MiddlewareHarness()
        let other = harness.manager.beganNetworkTask(label: "other", progress: halfDone(of: 100))
        let manual = ManualBody(length: .known(100))
        var body = try await harness.respond(with: manual.body)
        var iterator = body?.makeAsyncIterator()
        manual.send(String(repeating: "x", count: 50))
        _ = try await iterator?.next()
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0.5, "50 of 100 and 50 of 100")
        iterator = nil
        body = nil
        #expect(harness.count == 1, "the dropped body ended its task")
        // Counted as done it would read 150 of 200; it drops out instead.
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0.5)
        manual.continuation.finish()
        withExtendedLifetime((other, iterator, body)) {}
    }

    @Test func aRequestThatFailsWhileUploadingLeavesTheBatch() async throws {
        let harness = MiddlewareHarness()
        let other = harness.manager.beganNetworkTask(label: "other", progress: halfDone(of: 100))
        let upload = HTTPBody(Array(repeating: UInt8(0x61), count: 100), length: .known(100))
        await #expect(throws: TransportFailure.self) {
            _ = try await harness.middleware.intercept(
                HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/upload"),
                body: upload,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "upload"
            ) { _, body, _ in
                if let body { for try await _ in body { break } }  // the first chunk, then a failure
                throw TransportFailure()
            }
        }
        #expect(harness.count == 1)
        #expect(harness.manager.progressSnapshot().fractionCompleted == 0.5, "the failed upload's bytes are not done")
        withExtendedLifetime(other) {}
    }

    /// Another task's progress, half done: lock-guarded, so read on the test's own thread (a
    /// plain `Progress` is read on the main queue only).
    private func halfDone(of total: Int64) -> Progress {
        let progress = NetworkActivityProgress(totalUnitCount: total)
        progress.completedUnitCount = total / 2
        return progress
    }
}
