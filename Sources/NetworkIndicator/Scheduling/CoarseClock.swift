#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// The monotonic clock at tick resolution (a few milliseconds), read where precision buys
/// nothing: task start times for snapshots and stale reports, and the edges a running delay
/// absorbs. It counts from the same origin as ``MainQueueScheduler/now`` (system uptime) and
/// never runs ahead of it; it costs about a fifth of a precise reading. ``MainQueueScheduler``
/// returns it as its ``NetworkIndicatorScheduler/coarseNow``: measured in the same run
/// (Benchmarks `ratios`, the clock A/B rows), an explicit begin+finish takes 100 ns with it and
/// 131 ns with the precise clock, a gain of 32 % (median of 7 runs, 30–34 %) on Linux.
enum CoarseClock {
    /// Seconds of system uptime, up to one scheduler tick behind the precise clock.
    static var now: Double {
        #if canImport(Darwin)
        return Double(clock_gettime_nsec_np(CLOCK_UPTIME_RAW_APPROX)) / 1_000_000_000
        #else
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
        #endif
    }
}
