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
/// never runs ahead of it. A manager on ``MainQueueScheduler`` reads it instead of `now` at
/// begins and finishes (`IndicatorDriver.clock()`); what that saves is measured in
/// Benchmarks/README.md ("Unsafe and hand-written constructs").
enum CoarseClock {
    /// One nanosecond in seconds. Multiplied, not divided: a division's latency (tens of
    /// cycles) showed as a fifth of a registry begin's samples under `perf` on an AMD EPYC VM; a
    /// coarse reading has no use for the last bit that the two forms may differ by.
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
