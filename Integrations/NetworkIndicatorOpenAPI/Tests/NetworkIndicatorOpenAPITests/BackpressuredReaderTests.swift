import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// A reader that takes its time between reads (it writes each chunk somewhere slow, it waits for
/// a consumer of its own): the unread-body clock runs between its reads, so a pause longer than
/// ``NetworkActivityMiddleware/unreadBodyTimeout`` ends the task mid-download. These tests pin
/// that documented limit and its remedy, on the manual scheduler the harness shares with its
/// manager.
@MainActor
@Suite struct BackpressuredReaderTests {
    private let timeout = MiddlewareHarness.unreadTimeout
    private static let chunk = String(repeating: "x", count: 10)

    @Test func pausesShorterThanTheTimeoutKeepTheTaskOverAnyLength() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(50))
        var iterator = try #require(try await harness.respond(with: manual.body)).makeAsyncIterator()
        var counts: [Int] = []
        for _ in 0..<5 {
            manual.send(Self.chunk)
            _ = try await iterator.next()
            harness.scheduler.advance(by: timeout - 1)  // works on the chunk, then reads again
            counts.append(harness.count)
        }
        manual.continuation.finish()
        #expect(try await iterator.next() == nil)
        #expect(counts == [1, 1, 1, 1, 1], "five pauses, each under the timeout, nearly five timeouts in all")
        #expect(harness.count == 0)
    }

    /// The limit: the clock cannot tell a reader that pauses from one that stopped for good.
    @Test func aPauseOfAWholeTimeoutBetweenReadsEndsTheTaskMidDownload() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(30))
        var iterator = try #require(try await harness.respond(with: manual.body)).makeAsyncIterator()
        manual.send(Self.chunk)
        _ = try await iterator.next()
        harness.scheduler.advance(by: timeout)
        let countAfterThePause = harness.count
        manual.send(Self.chunk)
        let next = try await iterator.next()
        #expect(countAfterThePause == 0, "10 of 30 bytes read, and the task has ended")
        #expect(next?.count == 10, "the bytes still come; they no longer count")
        #expect(harness.diagnostics.isEmpty)
        manual.continuation.finish()
    }

    /// The remedy for such a reader: no timeout (or a longer one) on its client's middleware.
    @Test func noTimeoutKeepsAReaderThatPausesCounted() async throws {
        let harness = MiddlewareHarness(unreadBodyTimeout: nil)
        let manual = ManualBody(length: .known(30))
        var iterator = try #require(try await harness.respond(with: manual.body)).makeAsyncIterator()
        manual.send(Self.chunk)
        _ = try await iterator.next()
        harness.scheduler.advance(by: 10 * timeout)
        let countAfterThePause = harness.count
        manual.send(Self.chunk)
        _ = try await iterator.next()
        #expect(countAfterThePause == 1)
        #expect(harness.manager.progressSnapshot().fractionCompleted == 20.0 / 30)
        manual.continuation.finish()
    }
}
