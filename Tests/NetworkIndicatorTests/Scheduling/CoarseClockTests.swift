import Dispatch
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

    /// Against the system's monotonic clock over the same wait (a sleep on a loaded schedule may
    /// last seconds): within half to twice its pace, give or take a tick.
    @Test func advancesAtOneSecondPerSecond() async throws {
        let realStart = DispatchTime.now().uptimeNanoseconds
        let start = CoarseClock.now
        try await Task.sleep(nanoseconds: 300_000_000)
        let elapsed = CoarseClock.now - start
        let real = Double(DispatchTime.now().uptimeNanoseconds - realStart) / 1_000_000_000
        #expect(elapsed >= real / 2 - 0.05 && elapsed <= real * 2, "\(real) s read as \(elapsed) s")
    }
}
