import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// GeneratedClientsAndURLSession.md's recipe for a feed where Foundation has no
    /// `bytes(for:)`: a data task whose delegate yields each chunk into a stream, begun as a
    /// group's operation that stops counting at the headers, with a cancellation handler that
    /// cancels the task. Against the loopback server's `/half/N`, which sends half a body and
    /// holds the rest: a feed gone quiet.
    @Suite("A delegate-fed stream as a group's feed")
    struct DelegateFeedTests {
        @Test func aScreensCancelStopsAQuietFeedsLoopAndItsTransfer() async throws {
            let server = try LocalHTTPServer()
            server.holdResponses()
            let feed = Feed(server.url("/half/\(16 * 1024)"))
            #expect(feed.app.activeTaskCount == 1, "the feed counts until its headers")
            let loop = Task { await feed.read() }
            await eventually { feed.delegate.bytes.withLock { $0 } == 16 * 1024 }
            #expect(feed.app.activeTaskCount == 0, "its headers came: no spinner for a live feed")
            feed.screen.cancelNetworkTasks()
            let (bytes, error) = await loop.value
            #expect(bytes == 16 * 1024, "the first half, and nothing after the cancel")
            #expect((error as? URLError)?.code == .cancelled, "the loop ended at the cancel, not at a chunk")
            // Foundation marks the task completed after telling its delegate.
            await eventually { feed.task.state == .completed }
            await server.waitUntilCancelledLoadsHaveStopped()
            server.releaseResponses()
            feed.session.invalidateAndCancel()
        }

        /// The loop's own task cancelled (a view's task gone): the stream's termination cancels
        /// the data task, whose connection the server sees close.
        @Test func aLoopCancelledByItsTaskStopsTheTransfer() async throws {
            let server = try LocalHTTPServer()
            server.holdResponses()
            let feed = Feed(server.url("/half/\(16 * 1024)"))
            let loop = Task { await feed.read() }
            await eventually { feed.delegate.bytes.withLock { $0 } == 16 * 1024 }
            loop.cancel()
            _ = await loop.value
            await eventually { feed.task.state == .completed }
            await server.waitUntilCancelledLoadsHaveStopped()
            server.releaseResponses()
            feed.session.invalidateAndCancel()
        }

        /// A feed that fails before its headers (nothing listens on the port) is finished by its
        /// delegate: it does not stay counted.
        @Test func aFeedThatFailsBeforeItsHeadersEnds() async throws {
            let feed = Feed(try #require(URL(string: "http://127.0.0.1:1/feed")))
            let (_, error) = await feed.read()
            #expect(error is URLError, "the loop ended with the load's error")
            #expect(feed.app.activeTaskCount == 0, "the delegate finished the feed that never had headers")
            feed.session.invalidateAndCancel()
        }
    }
}

/// The recipe, begun: a screen of an app, the feed as the screen's group's operation, its data
/// task resumed with a ``FeedDelegate``, and the stream the delegate feeds.
private struct Feed: Sendable {
    let app = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
    let screen: NetworkIndicatorManager
    let group: NetworkActivityGroup
    let chunks: AsyncThrowingStream<Data, any Error>
    let delegate: FeedDelegate
    let session: URLSession
    let task: URLSessionDataTask

    init(_ url: URL) {
        screen = NetworkIndicatorManager(parent: app, label: "feed screen")
        group = NetworkActivityGroup(manager: screen, label: "events")
        let (chunks, continuation) = AsyncThrowingStream.makeStream(of: Data.self)
        self.chunks = chunks
        delegate = FeedDelegate(feed: group, continuation: continuation)
        // Longer than `eventually` waits: only a cancel ends a quiet feed within a test.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 300
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: url)
        self.task = task
        group.cancellationHandler = { [weak task] in task?.cancel() }
        continuation.onTermination = { [weak task] termination in
            if case .cancelled = termination { task?.cancel() }
        }
        group.operationStarted()
        task.resume()
    }

    /// Loops over the stream to its end: the bytes read, and the error it ended with.
    func read() async -> (bytes: Int, error: (any Error)?) {
        var bytes = 0
        do {
            for try await chunk in chunks { bytes += chunk.count }
            return (bytes, nil)
        } catch {
            return (bytes, error)
        }
    }
}

/// The recipe's delegate: the headers stop the feed's count, each chunk goes into the stream, the
/// task's end ends it (and the feed's count, if no headers came).
private final class FeedDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let feed: NetworkActivityGroup
    let continuation: AsyncThrowingStream<Data, any Error>.Continuation
    let bytes = LockedState(0)
    private let hadHeaders = LockedState(false)

    init(feed: NetworkActivityGroup, continuation: AsyncThrowingStream<Data, any Error>.Continuation) {
        self.feed = feed
        self.continuation = continuation
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        hadHeaders.withLock { $0 = true }
        feed.operationStoppedCounting()
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        bytes.withLock { $0 += data.count }
        continuation.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if !hadHeaders.withLock({ $0 }) { feed.operationFinished() }
        continuation.finish(throwing: error)
    }
}
