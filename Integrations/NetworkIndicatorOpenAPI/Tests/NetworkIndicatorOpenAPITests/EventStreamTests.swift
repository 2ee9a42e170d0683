import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// A stream of server-sent events counts only until its headers arrive: it may stay open for the
/// life of a screen, and the spinner must not stay on with it.
@Suite struct EventStreamTests {
    @Test(arguments: ["text/event-stream", "Text/Event-Stream; charset=utf-8", " text/event-stream ;charset=utf-8"])
    func eventStreamCountsUntilItsHeadersArrive(contentType: String) async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let countWhileWaiting = LockedValue(0)
        let body = try #require(
            try await harness.respond(with: manual.body, headerFields: [.contentType: contentType]) {
                let count = harness.count
                countWhileWaiting.withLock { $0 = count }
            }
        )
        let countOnceTheHeadersArrived = harness.count
        let reader = Task { try await String(collecting: body, upTo: 100) }
        manual.send("data: one\n\n")
        manual.send("data: two\n\n")
        manual.continuation.finish()
        #expect(try await reader.value == "data: one\n\ndata: two\n\n", "the events pass through")
        #expect(countWhileWaiting.withLock { $0 } == 1)
        #expect(countOnceTheHeadersArrived == 0, "an open stream does not pin the spinner")
        #expect(harness.diagnostics.isEmpty, "its task ended once")
    }

    /// The stream is handed on with its length and iteration behaviour (wrapped only so that its
    /// screen's cancel reaches it: `HTTPEdgeTests`).
    @Test func eventStreamIsHandedOnWithItsLengthAndIterationBehavior() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody(length: .known(12))
        let body = try #require(
            try await harness.respond(with: manual.body, headerFields: [.contentType: "text/event-stream"])
        )
        #expect(body.length == .known(12))
        #expect(body.iterationBehavior == .single)
        manual.continuation.finish()
    }

    @Test(arguments: ["application/json", "text/event-streams", "text/plain; profile=text/event-stream"])
    func otherContentTypesCountUntilTheirBodyEnds(contentType: String) async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body, headerFields: [.contentType: contentType]))
        let countOnceTheHeadersArrived = harness.count
        manual.send("{}")
        manual.continuation.finish()
        _ = try await String(collecting: body, upTo: 100)
        #expect(countOnceTheHeadersArrived == 1)
        #expect(harness.count == 0)
    }

    /// A screen's loop waits for the next event when the screen goes away: its cancel makes the
    /// waiting read throw `CancellationError` at once, without waiting for the server.
    @Test(.timeLimit(.minutes(1)))
    func aScreensCancelEndsAReadWaitingOnItsFeed() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(
            try await harness.respond(with: manual.body, headerFields: [.contentType: "text/event-stream"])
        )
        let reader = Task { () -> [String] in
            var events: [String] = []
            do {
                for try await chunk in body { events.append(String(decoding: chunk, as: UTF8.self)) }
                events.append("ended")
            } catch is CancellationError {
                events.append("cancelled")
            } catch {
                events.append("\(error)")
            }
            return events
        }
        manual.send("data: one\n\n")
        await manual.readRequested()
        await manual.readRequested()  // the loop waits for the second event
        harness.manager.cancelNetworkTasks()
        // Should the read wait on, the time limit's cancel ends the feed, and the test fails.
        let events = await withTaskCancellationHandler {
            await reader.value
        } onCancel: {
            manual.continuation.finish()
        }
        #expect(events == ["data: one\n\n", "cancelled"])
        manual.continuation.finish()
    }

    /// A feed that can be read many times, read by two loops at once: the screen's cancel ends
    /// both waiting reads, not one; also after one loop's own task was cancelled first (its
    /// view went away), which is not the feed's end, whether the feed's read then throws or
    /// ends (as an `AsyncStream`'s does).
    @Test(.timeLimit(.minutes(1)), arguments: [(false, false), (true, false), (true, true)])
    func aScreensCancelEndsEveryReadWaitingOnItsFeed(afterOneLoopsOwnCancel: Bool, endsOnCancel: Bool) async throws {
        let harness = MiddlewareHarness()
        let (reads, readRequested) = AsyncStream.makeStream(of: Void.self)
        let feed = IdleFeed(reads: readRequested, endsOnCancel: endsOnCancel)
        let upstream = HTTPBody(feed, length: .unknown, iterationBehavior: .multiple)
        let body = try #require(
            try await harness.respond(with: upstream, headerFields: [.contentType: "text/event-stream"])
        )
        let readers = (0..<2).map { _ in
            Task { () -> String in
                do {
                    for try await _ in body {}
                    return "ended"
                } catch {
                    return "\(type(of: error))"
                }
            }
        }
        var requested = 0
        for await _ in reads {
            requested += 1
            if requested == 2 { break }
        }
        if afterOneLoopsOwnCancel {
            readers[0].cancel()
            #expect(await readers[0].value == (endsOnCancel ? "ended" : "CancellationError"))
        }
        harness.manager.cancelNetworkTasks()
        // Should a read wait on, the time limit's cancel ends it, and the test fails.
        var results: [String] = []
        for reader in readers {
            results.append(
                await withTaskCancellationHandler {
                    await reader.value
                } onCancel: {
                    reader.cancel()
                }
            )
        }
        #expect(
            results == [afterOneLoopsOwnCancel && endsOnCancel ? "ended" : "CancellationError", "CancellationError"]
        )
        #expect(harness.manager.activeTaskCount == 0)
    }

    /// A feed that can be read many times, kept after its only loop's own task was cancelled:
    /// nothing reads it any more, so it lets go of its screen, as a feed read once does.
    @Test(.timeLimit(.minutes(1)))
    func aFeedKeptAfterItsOnlyLoopsOwnCancelLetsGoOfItsScreen() async throws {
        let (reads, readRequested) = AsyncStream.makeStream(of: Void.self)
        let (app, body, screenIsAlive) = try await keptFeed(readRequested)
        let loop = Task {
            do {
                for try await _ in body {}
            } catch {}
        }
        for await _ in reads { break }
        loop.cancel()
        await loop.value
        #expect(!screenIsAlive(), "the kept feed, which nothing reads, still holds the screen")
        withExtendedLifetime((app, body)) {}
    }

    /// A feed that can be read many times, kept, whose two loops' own tasks are cancelled at the
    /// same moment (the screen's views went away together): each loop's read ends while the
    /// other's iterator still lives, yet neither reads on, so the feed lets go of its screen.
    @Test(.timeLimit(.minutes(1)))
    func aFeedKeptAfterBothItsLoopsOwnCancelsAtOnceLetsGoOfItsScreen() async throws {
        let (reads, readRequested) = AsyncStream.makeStream(of: Void.self)
        let (app, body, screenIsAlive) = try await keptFeed(readRequested)
        // Each loop keeps its iterator until both reads have ended (waiting in a task that is
        // not cancelled): neither read can see the other's iterator gone.
        let (ended, readEnded) = AsyncStream.makeStream(of: Void.self)
        let gates = (0..<2).map { _ in AsyncStream.makeStream(of: Void.self) }
        let loops = gates.map { gate in
            Task {
                var iterator = body.makeAsyncIterator()
                do {
                    while try await iterator.next() != nil {}
                } catch {}
                readEnded.yield()
                await Task.detached { for await _ in gate.stream {} }.value
                withExtendedLifetime(iterator) {}
            }
        }
        var requested = 0
        for await _ in reads {
            requested += 1
            if requested == 2 { break }
        }
        for loop in loops { loop.cancel() }
        var endedReads = 0
        for await _ in ended {
            endedReads += 1
            if endedReads == 2 { break }
        }
        for gate in gates { gate.continuation.finish() }
        for loop in loops { await loop.value }
        #expect(!screenIsAlive(), "the kept feed, which nothing reads, still holds the screen")
        withExtendedLifetime((app, body)) {}
    }
    /// A feed that can be read once, kept, whose only loop stops with `break` after its first
    /// event: nothing can read it again, so it lets go of its screen.
    @Test(.timeLimit(.minutes(1)))
    func aReadOnceFeedKeptAfterItsLoopBreaksLetsGoOfItsScreen() async throws {
        let (chunks, send) = AsyncStream.makeStream(of: HTTPBody.ByteChunk.self)
        let upstream = HTTPBody(chunks, length: .unknown, iterationBehavior: .single)
        let (app, body, screenIsAlive) = try await keptFeed(upstream)
        send.yield(Array("data: one\n\n".utf8)[...])
        for try await _ in body { break }
        #expect(!screenIsAlive(), "the kept feed, which nothing can read again, still holds the screen")
        send.finish()
        withExtendedLifetime((app, body)) {}
    }

    /// A live feed that can be read many times, answered to a request of a screen (a scope of
    /// the returned app manager) that nothing else holds: the body is kept, and `screenIsAlive`
    /// tells whether anything still holds the screen. Each read of the feed yields to
    /// `readRequested`, then waits until its task is cancelled.
    private func keptFeed(
        _ readRequested: AsyncStream<Void>.Continuation
    ) async throws -> (app: NetworkIndicatorManager, body: HTTPBody, screenIsAlive: @Sendable () -> Bool) {
        try await keptFeed(HTTPBody(IdleFeed(reads: readRequested), length: .unknown, iterationBehavior: .multiple))
    }

    /// `upstream`, answered as a live feed to a request of a screen that nothing else holds.
    private func keptFeed(
        _ upstream: HTTPBody
    ) async throws -> (app: NetworkIndicatorManager, body: HTTPBody, screenIsAlive: @Sendable () -> Bool) {
        let app = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let screen = NetworkIndicatorManager(parent: app, label: "screen")
        let response = HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])
        let kept = try await NetworkIndicatorManager.$current.withValue(screen) {
            try await NetworkActivityMiddleware().intercept(
                MiddlewareHarness.request,
                body: nil,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "feed"
            ) { _, _, _ in (response, upstream) }
        }.1
        return (app, try #require(kept), { [weak screen] in screen != nil })
    }
}

/// A live feed that never sends an event: each read says it was asked for, then waits until its
/// task is cancelled, and throws (`endsOnCancel`: ends, as an `AsyncStream`'s read does). It can
/// be read by many loops at once.
private struct IdleFeed: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let reads: AsyncStream<Void>.Continuation
    var endsOnCancel = false

    func makeAsyncIterator() -> Iterator { Iterator(reads: reads, endsOnCancel: endsOnCancel) }

    struct Iterator: AsyncIteratorProtocol {
        let reads: AsyncStream<Void>.Continuation
        let endsOnCancel: Bool
        mutating func next() async throws -> Element? {
            reads.yield()
            let (never, continuation) = AsyncStream.makeStream(of: Void.self)
            for await _ in never {}
            continuation.finish()
            if !endsOnCancel { try Task.checkCancellation() }
            return nil
        }
    }
}
