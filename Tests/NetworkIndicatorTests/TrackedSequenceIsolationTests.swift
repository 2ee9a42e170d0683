import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A base sequence whose iterator records, at each read, the actor it was read on (SE-0421):
/// a `for await` loop reads it on the loop's actor, so it may touch state of that actor.
private struct IsolationRecordingSequence: AsyncSequence {
    typealias Element = Int
    let count: Int
    let reads: LockedState<[ObjectIdentifier?]>

    struct AsyncIterator: AsyncIteratorProtocol {
        var remaining: Int
        let reads: LockedState<[ObjectIdentifier?]>

        mutating func next(isolation actor: isolated (any Actor)?) async -> Int? {
            let reader = actor.map { ObjectIdentifier($0) }
            reads.withLock { $0.append(reader) }
            guard remaining > 0 else { return nil }
            remaining -= 1
            return remaining
        }

        mutating func next() async -> Int? {
            await next(isolation: nil)
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(remaining: count, reads: reads)
    }
}

/// A download service on an actor of its own, reading a tracked sequence there.
private actor FeedService {
    func drain(_ feed: IsolationRecordingSequence, in manager: NetworkIndicatorManager) async -> Int {
        var seen = 0
        for await _ in feed.trackingNetworkActivity(in: manager) { seen += 1 }
        return seen
    }
}

@Suite("A tracked sequence is read where its loop runs")
struct TrackedSequenceIsolationTests {
    /// A loop on the main actor reads the base sequence on the main actor, as it would without
    /// tracking: a base iterator that shares state with main-actor code is not raced.
    @MainActor
    @Test func aLoopOnTheMainActorReadsTheBaseThere() async {
        let harness = Harness()
        let feed = IsolationRecordingSequence(count: 3, reads: LockedState([]))
        var seen = 0
        for await _ in feed.trackingNetworkActivity(in: harness.manager, label: "feed") { seen += 1 }
        #expect(seen == 3)
        let main = ObjectIdentifier(MainActor.shared)
        #expect(feed.reads.withLock { $0 } == [main, main, main, main], "3 elements and the end")
        #expect(harness.manager.activeTaskCount == 0)
    }

    /// The same on an actor of the caller's.
    @Test func aLoopOnAnActorReadsTheBaseOnThatActor() async {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let service = FeedService()
        let feed = IsolationRecordingSequence(count: 2, reads: LockedState([]))
        #expect(await service.drain(feed, in: manager) == 2)
        let reads = feed.reads.withLock { $0 }
        #expect(reads == Array(repeating: ObjectIdentifier(service), count: 3))
    }
}
