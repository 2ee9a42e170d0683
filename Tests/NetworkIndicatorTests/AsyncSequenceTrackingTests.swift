import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

private struct LoadFailed: Error {}

@MainActor
@Suite("AsyncSequence tracking")
struct AsyncSequenceTrackingTests {
    @Test func taskOpensAtTheFirstNextAndEndsWhenTheSequenceFinishes() async {
        let harness = Harness()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let tracked = stream.trackingNetworkActivity(in: harness.manager, label: "chunks")
        var iterator = tracked.makeAsyncIterator()
        #expect(harness.manager.activeTaskCount == 0, "making the iterator begins nothing")
        continuation.yield(1)
        continuation.yield(2)
        continuation.finish()
        #expect(await iterator.next() == 1)
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.manager.activitySnapshot().activities.map(\.label) == ["chunks"])
        #expect(await iterator.next() == 2)
        #expect(await iterator.next() == nil)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(await iterator.next() == nil, "a finished iterator stays finished")
        #expect(harness.manager.activeTaskCount == 0)
    }

    /// An iterator that reaches the end ends the task, even while a copy of it is still held.
    @Test func theEndEndsTheTaskWhileACopyOfTheIteratorLives() async {
        let harness = Harness()
        var iterator = [1].async.trackingNetworkActivity(in: harness.manager).makeAsyncIterator()
        #expect(await iterator.next() == 1)
        let copy = iterator
        #expect(await iterator.next() == nil)
        #expect(harness.manager.activeTaskCount == 0)
        withExtendedLifetime(copy) {}
    }

    @Test func aSequenceTrackedWithoutALabelIsNamedByWhereItWasMade() async {
        let harness = Harness()
        let (sequence, line) = ([1, 2].async.trackingNetworkActivity(in: harness.manager), #line)
        var iterator = sequence.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        #expect(
            harness.manager.activitySnapshot().activities.map(\.label) == ["AsyncSequenceTrackingTests.swift:\(line)"]
        )
    }

    @Test func errorEndsTheTaskAndPassesThrough() async {
        let harness = Harness()
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        continuation.yield(1)
        continuation.finish(throwing: LoadFailed())
        var seen: [Int] = []
        await #expect(throws: LoadFailed.self) {
            for try await value in stream.trackingNetworkActivity(in: harness.manager) {
                seen.append(value)
                #expect(harness.manager.activeTaskCount == 1)
            }
        }
        #expect(seen == [1])
        #expect(harness.manager.activeTaskCount == 0)
    }

    @Test func breakingOutOfTheLoopEndsTheTask() async {
        let harness = Harness()
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        for value in 0..<5 { continuation.yield(value) }
        var seen: [Int] = []
        for await value in stream.trackingNetworkActivity(in: harness.manager) {
            seen.append(value)
            #expect(harness.manager.activeTaskCount == 1)
            if value == 2 { break }
        }
        #expect(seen == [0, 1, 2])
        #expect(harness.manager.activeTaskCount == 0, "the released iterator ended it")
    }

    /// Shared, not handed over: two tasks hold the same sequence, which only a `Sendable` value
    /// may do (a tracked sequence is `Sendable` when its base is).
    @Test func aTrackedSequenceOfASendableBaseCanBeSharedBetweenTasks() async {
        let harness = Harness()
        let tracked = [1, 2].async.trackingNetworkActivity(in: harness.manager)
        async let first = Self.sum(of: tracked)
        async let second = Self.sum(of: tracked)
        #expect(await [first, second] == [3, 3])
    }

    private nonisolated static func sum<S: AsyncSequence & Sendable>(of sequence: S) async -> Int
    where S.Element == Int {
        var sum = 0
        do {
            for try await value in sequence { sum += value }
        } catch {
            Issue.record("\(error)")
        }
        return sum
    }

    @Test func eachIterationIsItsOwnTask() async {
        let harness = Harness()
        let tracked = [1, 2].async.trackingNetworkActivity(in: harness.manager)
        var first = tracked.makeAsyncIterator()
        var second = tracked.makeAsyncIterator()
        _ = await first.next()
        _ = await second.next()
        #expect(harness.manager.activeTaskCount == 2)
    }

    @Test func cancellingTheConsumerEndsTheTaskWhileItWaits() async {
        let harness = Harness()
        let manager = harness.manager
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let consumer = Task {
            var count = 0
            for await _ in stream.trackingNetworkActivity(in: manager) { count += 1 }
            return count
        }
        await eventually { manager.activeTaskCount == 1 }
        consumer.cancel()
        await eventually { manager.activeTaskCount == 0 }
        continuation.finish()
        #expect(await consumer.value == 0)
        #expect(manager.activeTaskCount == 0)
    }

    @Test func cancellingTheConsumerEndsTheTaskEvenIfTheSequenceKeepsWaiting() async {
        let harness = Harness()
        let manager = harness.manager
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let consumer = Task {
            for await _ in CancellationDeafSequence(values: stream).trackingNetworkActivity(in: manager) {}
        }
        await eventually { manager.activeTaskCount == 1 }
        consumer.cancel()
        await eventually { manager.activeTaskCount == 0 }
        continuation.finish()
        await consumer.value
    }
}

/// A screen that goes away cancels its own work: a feed it tracks is part of that work.
@MainActor
@Suite("AsyncSequence tracking: a screen's cancel")
struct AsyncSequenceCancelTests {
    @Test func aScreensCancelEndsItsTrackedStreamAndItsLoop() async {
        @MainActor final class Handled { var events: [Int] = [] }
        let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let feedActivity = NetworkIndicatorManager(parent: root, label: "Feed")
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let handled = Handled()
        let consumer = Task { @MainActor in
            for await event in stream.trackingNetworkActivity(in: feedActivity) { handled.events.append(event) }
        }
        continuation.yield(1)
        // Handled, not merely counted: the task begins at the loop's first read, and a cancel
        // that lands while that read waits drops the element it brings (the loop stops).
        await eventually { handled.events == [1] }
        #expect(feedActivity.activeTaskCount == 1)
        feedActivity.cancelNetworkTasks()
        #expect(feedActivity.activeTaskCount == 0, "the feed's task ends with the cancel")
        #expect(root.activeTaskCount == 0)
        continuation.yield(2)  // the loop was told to stop: this event is not handled
        continuation.finish()
        await consumer.value
        #expect(handled.events == [1])
        #expect(feedActivity.activeTaskCount == 0)
    }

    /// The read waiting when the screen's cancel lands gives `nil` if the base brings an
    /// element, but an error the base throws then is thrown as ever: the loop learns why its
    /// source failed, and no error is swallowed.
    @Test func aReadWaitingAtACancelStillThrowsTheBasesError() async {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
        let reads = LockedState(0)
        let consumer = Task { @MainActor in
            for try await _ in CountedReads(base: stream, reads: reads).trackingNetworkActivity(in: manager) {}
        }
        continuation.yield(1)
        // The second read waits for the base: the cancel lands in it, not between two reads.
        await eventually { reads.withLock { $0 } == 2 }
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 0)
        continuation.finish(throwing: LoadFailed())
        await #expect(throws: LoadFailed.self) { try await consumer.value }
    }

    /// A counted feed cancelled by its screen leaves the bar rather than count as done.
    @Test func aCancelledCountedStreamLeavesTheBar() async {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let other = manager.beganNetworkTask(label: "download", progress: NetworkActivityProgress(totalUnitCount: 10))
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let consumer = Task { @MainActor in
            for await _ in stream.trackingNetworkActivity(in: manager, expectedElementCount: 10) {}
        }
        continuation.yield(1)
        await eventually { manager.activeTaskCount == 2 }
        manager.cancelNetworkTasks()
        #expect(manager.activeTaskCount == 1, "the download, an opaque token, stays counted")
        #expect(manager.progressSnapshot().fractionCompleted == 0, "the feed's part left; the download is at 0")
        continuation.finish()
        await consumer.value
        withExtendedLifetime(other) {}
    }
}

/// `base`, counting the calls to its iterator's `next()` as they begin.
private struct CountedReads: AsyncSequence, Sendable {
    let base: AsyncThrowingStream<Int, any Error>
    let reads: LockedState<Int>

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator(), reads: reads) }

    struct Iterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<Int, any Error>.Iterator
        let reads: LockedState<Int>
        mutating func next() async throws -> Int? {
            reads.withLock { $0 += 1 }
            return try await base.next()
        }
    }
}

/// A sequence whose `next()` waits for `values` in a task of its own, which the consumer's
/// cancellation does not reach: it ends only when `values` yields or finishes.
private struct CancellationDeafSequence: AsyncSequence, Sendable {
    let values: AsyncStream<Int>

    func makeAsyncIterator() -> Iterator { Iterator(values: values) }

    struct Iterator: AsyncIteratorProtocol {
        let values: AsyncStream<Int>
        mutating func next() async -> Int? {
            await Task { [values] in
                var iterator = values.makeAsyncIterator()
                return await iterator.next()
            }.value
        }
    }
}
