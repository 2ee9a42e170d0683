import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// The logic under `bytes(for:tracking:)` (Apple-only), on plain async sequences: one task from
/// the request to the end of the body.
@Suite("A task handed off to a sequence's iterator")
struct HandedOffActivityTests {
    private struct Failure: Error {}

    private func makeManager() -> NetworkIndicatorManager {
        NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
    }

    private func iterator(
        over elements: [Int],
        failing: Bool = false,
        in manager: NetworkIndicatorManager
    ) -> HandedOffActivityIterator<AsyncThrowingStream<Int, any Error>.Iterator> {
        let stream = AsyncThrowingStream<Int, any Error> { continuation in
            for element in elements { continuation.yield(element) }
            continuation.finish(throwing: failing ? Failure() : nil)
        }
        let handoff = ActivityHandoff(manager.beganNetworkTask(label: "request"))
        return HandedOffActivityIterator(
            base: stream.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
    }

    @Test func handedOffTaskLastsUntilTheSequenceFinishes() async throws {
        let manager = makeManager()
        var bytes = iterator(over: [1, 2], in: manager)
        #expect(manager.activeTaskCount == 1)
        #expect(try await bytes.next() == 1)
        #expect(try await bytes.next() == 2)
        #expect(manager.activeTaskCount == 1, "the same task, not a second one")
        #expect(manager.activitySnapshot().activities.map(\.label) == ["request"])
        #expect(try await bytes.next() == nil)
        #expect(manager.activeTaskCount == 0)
        #expect(try await bytes.next() == nil)
    }

    @Test func handedOffTaskEndsWhenTheSequenceFails() async {
        let manager = makeManager()
        var bytes = iterator(over: [1], failing: true, in: manager)
        _ = try? await bytes.next()
        await #expect(throws: Failure.self) { try await bytes.next() }
        #expect(manager.activeTaskCount == 0)
    }

    @Test func handedOffTaskEndsWhenTheIteratorIsReleased() async throws {
        let manager = makeManager()
        var bytes: HandedOffActivityIterator? = iterator(over: [1, 2], in: manager)
        #expect(try await bytes?.next() == 1)
        bytes = nil
        #expect(manager.activeTaskCount == 0)
    }

    @Test func handoffDroppedUnreadEndsItsTask() {
        let manager = makeManager()
        var handoff: ActivityHandoff? = ActivityHandoff(manager.beganNetworkTask())
        #expect(manager.activeTaskCount == 1)
        handoff = nil
        #expect(manager.activeTaskCount == 0)
        _ = handoff
    }

    @Test func onlyTheFirstIteratorTakesTheHandedOffTask() async throws {
        let manager = makeManager()
        let handoff = ActivityHandoff(manager.beganNetworkTask(label: "request"))
        let first = HandedOffActivityIterator(
            base: AsyncStream<Int> { $0.finish() }.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
        var second = HandedOffActivityIterator(
            base: AsyncStream<Int> { $0.yield(1) }.makeAsyncIterator(),
            handoff: handoff,
            manager: manager,
            label: "body"
        )
        #expect(manager.activeTaskCount == 1)
        _ = try await second.next()
        #expect(manager.activitySnapshot().activities.map(\.label).sorted() == ["body", "request"])
        withExtendedLifetime(first) {}
    }
}
