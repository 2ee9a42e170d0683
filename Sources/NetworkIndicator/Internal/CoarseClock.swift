#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The monotonic clock at tick resolution (a few milliseconds), for readings where precision buys
/// nothing: task start times (snapshots, stale reports) and the edges a running delay absorbs.
/// Same origin as ``MainQueueScheduler/now`` (system uptime), never ahead of it. Read through
/// ``EventTime`` instead of `now` by a manager on ``MainQueueScheduler``; the gain is in
/// Benchmarks/README.md ("Unsafe and hand-written constructs").
enum CoarseClock {
    /// One nanosecond in seconds: multiplied, not divided (a division showed under `perf`; Benchmarks/README.md).
    private static let nanosecond = 1e-9

    /// Seconds of system uptime, up to one scheduler tick behind the precise clock.
    static var now: Double {
        #if canImport(Darwin)
        return Double(clock_gettime_nsec_np(CLOCK_UPTIME_RAW_APPROX)) * nanosecond
        #else
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * nanosecond
        #endif
    }
}

/// The time of one event, read at most once and only when asked: a reading taken before the lock
/// (a scheduler other than ``MainQueueScheduler``), or the coarse clock on demand. In seconds,
/// a `TimeInterval` (Foundation is not imported here).
struct EventTime {
    /// The reading, or NaN until read (a NaN preread, out of the scheduler's contract, reads the
    /// coarse clock). Not an optional: it crosses the registry's calls `inout` (Benchmarks/README.md).
    private var reading: Double

    init(preread: Double?) {
        reading = preread ?? .nan
    }

    mutating func now() -> Double {
        if !reading.isNaN { return reading }
        reading = CoarseClock.now
        return reading
    }
}
