import Testing

@testable import NetworkIndicator

/// The coarse clock against the scheduler's precise one: the same origin, never ahead of it,
/// behind by at most a tick (a few milliseconds; the bound allows a tenth of a second).
@Suite("Coarse clock")
struct CoarseClockTests {
    private let precise = MainQueueScheduler()

    @Test func readsTheSchedulersClockAtMostATickBehind() {
        let before = precise.now
        let coarse = CoarseClock.now
        let after = precise.now
        #expect(coarse <= after, "ahead of the precise clock by \(coarse - after) s")
        #expect(coarse >= before - 0.1, "behind the precise clock by \(before - coarse) s")
    }

    @Test func advancesAtOneSecondPerSecond() async throws {
        let start = CoarseClock.now
        try await Task.sleep(nanoseconds: 300_000_000)
        let elapsed = CoarseClock.now - start
        #expect(elapsed >= 0.15 && elapsed <= 3, "0.3 s of sleep read as \(elapsed) s")
    }
}
