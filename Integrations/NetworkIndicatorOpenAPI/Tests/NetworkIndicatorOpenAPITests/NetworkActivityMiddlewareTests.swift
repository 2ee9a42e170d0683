import Foundation
import HTTPTypes
import NetworkIndicator
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// When a request's task begins and ends, through `intercept` called directly.
@Suite struct NetworkActivityMiddlewareTests {
    @Test func requestCountsWhileNextRuns() async throws {
        let harness = MiddlewareHarness()
        let counted = LockedValue<Int?>(nil)
        _ = try await harness.respond(with: nil) {
            let count = harness.count
            counted.withLock { $0 = count }
        }
        #expect(counted.withLock { $0 } == 1)
    }

    @Test func nextThrowingEndsTaskAndRethrowsTheSameError() async throws {
        let harness = MiddlewareHarness()
        await #expect(throws: TransportFailure()) { try await harness.fail(with: TransportFailure()) }
        #expect(harness.count == 0)
    }

    @Test func cancellationFromNextEndsTaskAndIsRethrown() async throws {
        let harness = MiddlewareHarness()
        await #expect(throws: CancellationError.self) { try await harness.fail(with: CancellationError()) }
        #expect(harness.count == 0)
    }

    @Test func responseWithoutBodyEndsAtOnce() async throws {
        let harness = MiddlewareHarness()
        let body = try await harness.respond(with: nil)
        #expect(body == nil)
        #expect(harness.count == 0)
    }

    @Test func bodyKnownToBeEmptyEndsAtOnce() async throws {
        let harness = MiddlewareHarness()
        let empty = HTTPBody()
        let body = try await harness.respond(with: empty)
        #expect(body === empty)
        #expect(harness.count == 0)
    }

    @Test func streamedBodyCountsUntilItsEnd() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        var iterator = body.makeAsyncIterator()
        var counts: [Int] = []
        for chunk in ["a", "b", "c"] {
            manual.send(chunk)
            _ = try await iterator.next()
            counts.append(harness.count)
        }
        manual.continuation.finish()
        #expect(try await iterator.next() == nil)
        #expect(counts == [1, 1, 1])
        #expect(harness.count == 0)
    }

    @Test func bufferedBodyEndsWhenCollected() async throws {
        let harness = MiddlewareHarness()
        let body = try #require(try await harness.respond(with: HTTPBody("hello")))
        let countBeforeReading = harness.count
        _ = try await String(collecting: body, upTo: 100)
        #expect(countBeforeReading == 1)
        #expect(harness.count == 0)
    }

    @Test func failingReadEndsTaskAndRethrowsTheSameError() async throws {
        let harness = MiddlewareHarness()
        let failing = HTTPBody(FailingSequence(), length: .unknown, iterationBehavior: .multiple)
        let body = try #require(try await harness.respond(with: failing))
        await #expect(throws: ReadFailure()) { _ = try await String(collecting: body, upTo: 100) }
        #expect(harness.count == 0)
        withExtendedLifetime(body) {}
    }

    @Test func bodyReleasedUnreadEndsTask() async throws {
        let harness = MiddlewareHarness()
        var countWhileHeld = 0
        do {
            let body = try await harness.respond(with: ManualBody().body)
            countWhileHeld = harness.count
            withExtendedLifetime(body) {}
        }
        #expect(countWhileHeld == 1)
        #expect(harness.count == 0)
    }

    @Test func singleIterationBodyEndsWhenItsIteratorIsReleasedEarly() async throws {
        let harness = MiddlewareHarness()
        let manual = ManualBody()
        let body = try #require(try await harness.respond(with: manual.body))
        manual.send("first")
        do {
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(harness.count == 0)
        withExtendedLifetime(body) {}
    }

    @Test func multipleIterationBodyStaysOpenWhenAnIteratorIsReleasedEarly() async throws {
        let harness = MiddlewareHarness()
        let body = try #require(try await harness.respond(with: HTTPBody("hello")))
        do {
            var iterator = body.makeAsyncIterator()
            _ = try await iterator.next()
        }
        #expect(harness.count == 1)
        withExtendedLifetime(body) {}
    }

    /// The read throws `CancellationError`, as `URLSession`'s bytes do, and the body can be read
    /// again and is kept: only the failed read can end the task (no iterator release does, no
    /// end of the body).
    @Test func cancelledReaderWhoseReadThrowsEndsTask() async throws {
        let harness = MiddlewareHarness()
        let upstream = CancellationThrowingBody()
        let body = try #require(try await harness.respond(with: upstream.body))
        let reader = Task {
            var iterator = body.makeAsyncIterator()
            while try await iterator.next() != nil {}
        }
        await upstream.readRequested()
        reader.cancel()
        let result = await reader.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(harness.count == 0)
        withExtendedLifetime(body) {}
    }

    @Test func requestFilterSeesTheRequest() async throws {
        let harness = MiddlewareHarness(countsRequest: { request, _ in request.path?.hasPrefix("/events") != true })
        let events = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/events?since=1")
        let original = HTTPBody("events")
        let counted = LockedValue<[Int]>([])
        let recordCount: @Sendable () -> Void = {
            let count = harness.count
            counted.withLock { $0.append(count) }
        }
        let body = try await harness.respond(with: original, request: events, whileRunning: recordCount)
        _ = try await harness.respond(with: nil, whileRunning: recordCount)
        #expect(counted.withLock { $0 } == [0, 1])
        #expect(body === original)
    }

    @Test func requestCountsOnlyIfBothFiltersLetItThrough() async throws {
        let askedRequestFilter = LockedValue(false)
        let harness = MiddlewareHarness(
            countsOperation: { _ in false },
            countsRequest: { _, _ in
                askedRequestFilter.withLock { $0 = true }
                return true
            }
        )
        let counted = LockedValue<Int?>(nil)
        _ = try await harness.respond(with: nil) {
            let count = harness.count
            counted.withLock { $0 = count }
        }
        #expect(counted.withLock { $0 } == 0)
        #expect(askedRequestFilter.withLock { $0 } == false, "the request filter runs only after the operation filter")
    }

    @Test func requestFilterSeesTheOperationID() async throws {
        let seen = LockedValue<[String]>([])
        let harness = MiddlewareHarness(countsRequest: { _, operationID in
            seen.withLock { $0.append(operationID) }
            return true
        })
        _ = try await harness.respond(with: nil, operationID: "listPosts")
        #expect(seen.withLock { $0 } == ["listPosts"])
    }

    @Test func filteredOutOperationIsNotCountedAndItsBodyIsUntouched() async throws {
        let harness = MiddlewareHarness(countsOperation: { $0 != "watchEvents" })
        let original = HTTPBody("events")
        let counted = LockedValue<Int?>(nil)
        let body = try await harness.respond(with: original, operationID: "watchEvents") {
            let count = harness.count
            counted.withLock { $0 = count }
        }
        #expect(counted.withLock { $0 } == 0)
        #expect(body === original)
    }

    @Test func labelDefaultsToTheOperationID() async throws {
        let harness = MiddlewareHarness()
        let labels = LockedValue<[String]>([])
        _ = try await harness.respond(with: nil, operationID: "getGreeting") {
            let seen = harness.manager.activitySnapshot().activities.map(\.label)
            labels.withLock { $0 = seen }
        }
        #expect(labels.withLock { $0 } == ["getGreeting"])
    }

    @Test func customLabelIsUsed() async throws {
        let harness = MiddlewareHarness(label: { "API \($0)" })
        let labels = LockedValue<[String]>([])
        _ = try await harness.respond(with: nil, operationID: "getGreeting") {
            let seen = harness.manager.activitySnapshot().activities.map(\.label)
            labels.withLock { $0 = seen }
        }
        #expect(labels.withLock { $0 } == ["API getGreeting"])
    }

    /// A request's task says where in the app its middleware was made (the generated client
    /// calls `intercept`, so the request's own call is not known): with two clients, a snapshot
    /// tells which one keeps the indicator on. A `nil` label leaves the task named by that place.
    @Test(arguments: [false, true])
    func aRequestsTaskBeganWhereItsMiddlewareWasMade(labelled: Bool) async throws {
        let harness = MiddlewareHarness()
        let (middleware, line) = (
            NetworkActivityMiddleware(manager: harness.manager, label: { labelled ? $0 : nil }), #line
        )
        let seen = LockedValue<[NetworkActivitySnapshot.Activity]>([])
        _ = try await middleware.intercept(
            MiddlewareHarness.request,
            body: nil,
            baseURL: URL(string: "http://127.0.0.1")!,
            operationID: "getThing"
        ) { _, _, _ in
            let activities = harness.manager.activitySnapshot().activities
            seen.withLock { $0 = activities }
            return (HTTPResponse(status: .noContent), nil)
        }
        let site = "NetworkActivityMiddlewareTests.swift:\(line)"
        let activities = seen.withLock { $0 }
        #expect(activities.map(\.callSite) == [site])
        #expect(activities.map(\.label) == [labelled ? "getThing" : site])
    }
}
