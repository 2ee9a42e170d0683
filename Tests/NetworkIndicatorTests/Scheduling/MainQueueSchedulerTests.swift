import Dispatch
import Foundation
import Testing

@testable import NetworkIndicator

/// The production scheduler on the real main queue. The bounds are generous (a loaded schedule
/// may run a timer late by a good fraction of a second): they catch a wrong unit or a floored
/// delay, orders of magnitude, not jitter. Serialized: one test holds the main thread, which
/// would delay the others' timers.
@MainActor
@Suite("Main-queue scheduler", .serialized)
struct MainQueueSchedulerTests {
    private let scheduler = MainQueueScheduler()

    /// Seconds on the system's monotonic clock, read without the scheduler.
    private static func uptime() -> TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }

    /// Blocks the calling (main) thread, so that the main queue runs nothing meanwhile.
    private func holdTheMainThread(for seconds: TimeInterval) {
        Thread.sleep(forTimeInterval: seconds)
    }

    /// Against the system's monotonic clock over the same wait (a sleep on a loaded schedule may
    /// last seconds): within half to twice its pace.
    @Test func nowAdvancesAtOneSecondPerSecond() async throws {
        let realStart = Self.uptime()
        let before = scheduler.now
        try await Task.sleep(nanoseconds: 300_000_000)
        let elapsed = scheduler.now - before
        let real = Self.uptime() - realStart
        #expect(elapsed >= real / 2 && elapsed <= real * 2, "\(real) s read as \(elapsed) s")
    }

    @Test func nowCountsSystemUptime() {
        let before = Self.uptime()
        let now = scheduler.now
        let after = Self.uptime()
        #expect(now >= before && now <= after, "now \(now), uptime between \(before) and \(after)")
    }

    /// Measured against a plain `asyncAfter` with the same deadline, so that a main queue kept
    /// busy by other tests delays both alike: the timer runs within half a second of it.
    @Test func aShortDelayFiresWellBeforeASecond() async {
        let fired = Firings()
        let reference = Firings()
        let started = Self.uptime()
        let timer = scheduler.schedule(after: 0.2, repeating: nil, leeway: 0.02) { fired.record() }
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.2) { MainActor.assumeIsolated { reference.record() } }
        let done = await eventually { fired.count == 1 && reference.count == 1 }
        timer.cancel()
        guard done else { return }
        #expect(fired.times[0] - started >= 0.15, "fired after \(fired.times[0] - started) s, before its delay")
        let late = fired.times[0] - reference.times[0]
        #expect(late < 0.5, "\(late) s after an asyncAfter of the same 0.2 s")
    }

    @Test func aOneShotTimerFiresOnce() async throws {
        let fired = Firings()
        let timer = scheduler.schedule(after: 0.01, repeating: nil, leeway: 0) { fired.record() }
        await eventually { fired.count == 1 }
        try await Task.sleep(nanoseconds: 150_000_000)  // a bounded quiet period: no second firing
        #expect(fired.count == 1)
        timer.cancel()
    }

    @Test func aRepeatingTimerRepeatsAtItsInterval() async {
        let fired = Firings()
        let started = Self.uptime()
        let timer = scheduler.schedule(after: 0.01, repeating: 0.05, leeway: 0.005) { fired.record() }
        let repeated = await eventually { fired.count >= 3 }
        timer.cancel()
        guard repeated else { return }
        // A timer never fires early (a late one may catch up), so the third run waits at least
        // the delay and two intervals.
        let third = fired.times[2] - started
        #expect(third >= 0.1, "the third run came after \(third) s, not 0.11 s")
    }

    /// Measured against main-queue work due at the same moment, as above.
    /// A negative delay, or one that is not a number (Dispatch would read it as never), fires
    /// at once.
    @Test(arguments: [-5, Double.nan])
    func aNegativeDelayOrNoNumberFiresAtOnce(delay: TimeInterval) async {
        let fired = Firings()
        let reference = Firings()
        let timer = scheduler.schedule(after: delay, repeating: nil, leeway: 0) { fired.record() }
        // A reference that also goes through Dispatch's timers (a zero delay would not), so
        // that a loaded schedule (the thread sanitizer, a model run alongside) delays both alike:
        // a plain `async` was measured 0.62 s ahead of the timer under TSan.
        DispatchQueue.main.asyncAfter(deadline: .now() + 0.001) { MainActor.assumeIsolated { reference.record() } }
        let done = await eventually { fired.count == 1 && reference.count == 1 }
        timer.cancel()
        guard done else { return }
        let late = fired.times[0] - reference.times[0]
        #expect(late < 0.5, "\(late) s after work due at the same time")
    }

    @Test func aCancelledTimerNeverFires() async throws {
        let fired = Firings()
        let timer = scheduler.schedule(after: 0.02, repeating: 0.02, leeway: 0) { fired.record() }
        timer.cancel()
        try await Task.sleep(nanoseconds: 200_000_000)  // ten intervals, each a firing if not cancelled
        #expect(fired.count == 0)
    }

    /// The contract: work that has not started never starts after `cancel()` returns, even when
    /// its firing is already due and waits only for the main queue.
    @Test func aTimerCancelledWhileItsFiringWaitsForTheMainQueueNeverRuns() async throws {
        let fired = Firings()
        let timer = scheduler.schedule(after: 0.01, repeating: nil, leeway: 0) { fired.record() }
        holdTheMainThread(for: 0.1)  // the deadline passes while the main queue cannot run
        timer.cancel()
        try await Task.sleep(nanoseconds: 150_000_000)  // lets the main queue drain
        #expect(fired.count == 0)
    }

    @Test func aRepeatingTimerCancelledAfterItsFirstFiringStops() async throws {
        let fired = Firings()
        let timer = scheduler.schedule(after: 0.01, repeating: 0.02, leeway: 0) { fired.record() }
        await eventually { fired.count >= 1 }
        timer.cancel()
        let count = fired.count
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(fired.count == count, "fired \(fired.count - count) more times after the cancel")
    }

    @Test func enqueuedWorkRunsOnTheMainQueueAfterTheCall() async {
        let fired = Firings()
        scheduler.enqueue { fired.record() }
        #expect(fired.count == 0, "not run inside the call")
        await eventually { fired.count == 1 }
    }

    @Test func leewayIsCountedInMicroseconds() {
        #expect(MainQueueScheduler.dispatchLeeway(0.05) == .microseconds(50_000))
        #expect(MainQueueScheduler.dispatchLeeway(0.000_003) == .microseconds(3))
    }

    @Test func leewayIsAtMostOneSecond() {
        #expect(MainQueueScheduler.dispatchLeeway(10) == .microseconds(1_000_000))
        #expect(MainQueueScheduler.dispatchLeeway(1) == .microseconds(1_000_000))
    }

    @Test func aNegativeOrNaNLeewayIsZero() {
        #expect(MainQueueScheduler.dispatchLeeway(-1) == .microseconds(0))
        #expect(MainQueueScheduler.dispatchLeeway(.nan) == .microseconds(0))
    }

    @Test func anIntervalIsAtLeastAMicrosecond() {
        #expect(MainQueueScheduler.dispatchInterval(0.05) == 0.05)
        #expect(MainQueueScheduler.dispatchInterval(0.000_001) == 0.000_001)
        #expect(MainQueueScheduler.dispatchInterval(0.000_000_5) == 0.000_001)
        #expect(MainQueueScheduler.dispatchInterval(0) == 0.000_001)
        #expect(MainQueueScheduler.dispatchInterval(-1) == 0.000_001)
        #expect(MainQueueScheduler.dispatchInterval(.nan) == 0.000_001)
    }

    /// `completionCheckInterval = 1e11`, a natural "never": Dispatch traps on an interval whose
    /// nanoseconds overflow 64 bits. Anything from about 31 years on repeats every 31 years.
    @Test func aHugeIntervalIsKeptUnderWhatDispatchCanTake() {
        #expect(MainQueueScheduler.dispatchInterval(1e9) == 1e9)
        #expect(MainQueueScheduler.dispatchInterval(1e11) == 1e9)
        #expect(MainQueueScheduler.dispatchInterval(.infinity) == 1e9)
        scheduler.schedule(after: 3_600, repeating: 1e11, leeway: 0) {}.cancel()
    }

    /// Through the real timer: an interval Dispatch could not take does not trap, and the timer
    /// repeats.
    @Test func aRepeatingTimerWithAnIntervalUnderAMicrosecondRepeats() async {
        let fired = Firings()
        let timer = scheduler.schedule(after: 0, repeating: -1, leeway: 0) { fired.record() }
        await eventually { fired.count >= 3 }
        timer.cancel()
        #expect(fired.count >= 3)
    }
}

/// The times (on the system's monotonic clock) at which a timer's work ran, on the main actor.
@MainActor
private final class Firings {
    private(set) var times: [TimeInterval] = []

    var count: Int { times.count }

    func record() {
        times.append(TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000)
    }
}
