import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import OpenAPIURLSession
import Testing

@testable import NetworkIndicatorOpenAPI

/// One shared client, many screens: a middleware made without a manager counts each request in
/// `NetworkIndicatorManager.current`, bound by the caller with `$current.withValue`.
@Suite struct PerScreenCountingTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let app: NetworkIndicatorManager
    private let feed: NetworkIndicatorManager
    private let profile: NetworkIndicatorManager

    init() {
        app = NetworkIndicatorManager(scheduler: scheduler)
        feed = NetworkIndicatorManager(parent: app, label: "feed")
        profile = NetworkIndicatorManager(parent: app, label: "profile")
    }

    private var counts: [Int] { [feed.activeTaskCount, profile.activeTaskCount, app.activeTaskCount] }

    @Test func middlewareWithoutAManagerCountsInTheCurrentOne() async throws {
        let middleware = NetworkActivityMiddleware()
        let seen = LockedValue<[Int]>([])
        _ = try await NetworkIndicatorManager.$current.withValue(feed) {
            try await middleware.intercept(
                MiddlewareHarness.request,
                body: nil,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "listPosts"
            ) { _, _, _ in
                let counts = counts
                seen.withLock { $0 = counts }
                return (HTTPResponse(status: .ok), nil)
            }
        }
        #expect(seen.withLock { $0 } == [1, 0, 1])
        #expect(counts == [0, 0, 0])
    }

    @Test func middlewareWithoutAManagerCountsInTheSharedOneUnlessBound() {
        #expect(NetworkActivityMiddleware().manager === NetworkIndicatorManager.shared)
        let bound = NetworkIndicatorManager.$current.withValue(feed) { NetworkActivityMiddleware().manager }
        #expect(bound === feed)
    }

    @Test func sharedGeneratedClientCountsEachCallInTheScreenThatMadeIt() async throws {
        let server = try LoopbackAPIServer()
        let feedProbe = CountProbeMiddleware(manager: feed)
        let profileProbe = CountProbeMiddleware(manager: profile)
        let client = Client(
            serverURL: server.baseURL,
            transport: URLSessionTransport(),
            middlewares: [NetworkActivityMiddleware(), feedProbe, profileProbe]
        )
        let greeting = try await NetworkIndicatorManager.$current.withValue(feed) {
            try await client.getGreeting(query: .init(name: "feed")).ok.body.json.message
        }
        _ = try await NetworkIndicatorManager.$current.withValue(profile) {
            try await client.getGreeting(query: .init(name: "profile")).ok.body.json
        }
        #expect(greeting == "Hello, feed")
        #expect(feedProbe.counts.withLock { $0 } == [1, 0])
        #expect(profileProbe.counts.withLock { $0 } == [0, 1])
        #expect(counts == [0, 0, 0])
    }

    @MainActor
    @Test func unreadBodyTimesOutOnTheCurrentManagersScheduler() async throws {
        let server = try LoopbackAPIServer()
        let client = Client(
            serverURL: server.baseURL,
            transport: URLSessionTransport(),
            middlewares: [NetworkActivityMiddleware()]
        )
        let output = try await NetworkIndicatorManager.$current.withValue(feed) {
            try await client.getGreeting(query: .init(name: "missing"))
        }
        let countWhileKept = feed.activeTaskCount
        scheduler.advance(by: NetworkActivityMiddleware.defaultUnreadBodyTimeout)
        #expect(countWhileKept == 1)
        #expect(feed.activeTaskCount == 0)
        withExtendedLifetime(output) {}
    }

    @Test func keptBodyDoesNotKeepItsScreenAliveOnceItsTaskEnded() async throws {
        weak var weakScreen: NetworkIndicatorManager?
        var kept: HTTPBody?
        do {
            let screen = NetworkIndicatorManager(parent: app, label: "screen")
            weakScreen = screen
            kept = try await body(in: screen, HTTPResponse(status: .ok), HTTPBody("kept for an alert"))
            _ = try await String(collecting: try #require(kept), upTo: 100)
            #expect(screen.activeTaskCount == 0)
        }
        #expect(weakScreen == nil, "the body, kept after its task ended, still holds the screen")
        withExtendedLifetime(kept) {}
    }

    /// A body kept after its screen's cancel (an undocumented answer's, inside an error kept for
    /// an alert; a live feed): the cancel ended its task, and lets go of the screen at once, not
    /// at the body's first read, its unread timeout or its release; a read after the cancel, an
    /// ordinary body's or a feed's, throws.
    @Test(
        arguments: [
            (nil, 2, true), ("text/event-stream", 2, true), (nil, nil, false), (nil, 30, false),
            ("text/event-stream", nil, false),
        ] as [(String?, TimeInterval?, Bool)]
    )
    func bodyKeptAfterItsScreensCancelDoesNotKeepTheScreenAlive(
        contentType: String?,
        unreadBodyTimeout: TimeInterval?,
        readsAfterTheCancel: Bool
    ) async throws {
        weak var weakScreen: NetworkIndicatorManager?
        var kept: HTTPBody?
        do {
            let screen = NetworkIndicatorManager(parent: app, label: "screen")
            weakScreen = screen
            var response = HTTPResponse(status: .notFound)
            if let contentType { response.headerFields[.contentType] = contentType }
            kept = try await body(
                in: screen,
                response,
                HTTPBody("data: undocumented\n\n"),
                unreadBodyTimeout: unreadBodyTimeout
            )
            screen.cancelNetworkTasks()
            #expect(screen.activeTaskCount == 0)
            if readsAfterTheCancel {
                await #expect(throws: CancellationError.self) {
                    _ = try await String(collecting: try #require(kept), upTo: 100)
                }
            }
        }
        #expect(weakScreen == nil, "the kept body, whose task the cancel ended, still holds the screen")
        withExtendedLifetime(kept) {}
    }

    /// The body of a request counted in `screen` (bound as the current manager) and answered
    /// with `response` and `body`.
    private func body(
        in screen: NetworkIndicatorManager,
        _ response: HTTPResponse,
        _ body: HTTPBody,
        unreadBodyTimeout: TimeInterval? = NetworkActivityMiddleware.defaultUnreadBodyTimeout
    ) async throws -> HTTPBody? {
        try await NetworkIndicatorManager.$current.withValue(screen) {
            try await NetworkActivityMiddleware(unreadBodyTimeout: unreadBodyTimeout).intercept(
                MiddlewareHarness.request,
                body: nil,
                baseURL: URL(string: "http://127.0.0.1")!,
                operationID: "getThing"
            ) { _, _, _ in (response, body) }
        }.1
    }
}
