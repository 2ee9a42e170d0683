import Dispatch
public import Foundation

/// The production scheduler: the main dispatch queue and `DispatchSourceTimer`s on it.
///
/// Timers on the main queue keep firing while a scroll view tracks a touch (the main queue is
/// drained in every run-loop mode, unlike a `Timer` added to the default mode), and each timer
/// carries a leeway so that the system can coalesce wake-ups.
///
/// On Linux and in command-line tools the main queue only runs while the main thread is in
/// `dispatchMain()`, `RunLoop.main.run()`, or an `async` `main`.
public struct MainQueueScheduler: NetworkIndicatorScheduler {
    /// Creates the scheduler. It holds no state; every instance behaves the same.
    public init() {}

    /// Seconds of system uptime (`DispatchTime.now()`), which is monotonic.
    public var now: TimeInterval {
        TimeInterval(DispatchTime.now().uptimeNanoseconds) / 1_000_000_000
    }

    /// Submits `work` to the main queue.
    public func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        DispatchQueue.main.async {
            MainActor.assumeIsolated { work() }
        }
    }

    /// Starts a `DispatchSourceTimer` on the main queue.
    public func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorCancellable {
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.setEventHandler {
            MainActor.assumeIsolated { work() }
        }
        timer.schedule(
            deadline: .now() + .nanoseconds(Self.nanoseconds(delay)),
            repeating: interval.map { .nanoseconds(Self.nanoseconds($0)) } ?? .never,
            leeway: .nanoseconds(Self.nanoseconds(leeway))
        )
        timer.resume()
        return DispatchTimerHandle(timer: timer)
    }

    private static func nanoseconds(_ seconds: TimeInterval) -> Int {
        guard seconds > 0 else { return 0 }
        return Int(min(seconds, TimeInterval(Int32.max)) * 1_000_000_000)
    }
}

/// Owns the timer source; `DispatchSourceTimer` is not `Sendable`, so it is reached only
/// through a lock (cancelling a source is thread-safe, handing it around is not declared so).
private struct DispatchTimerHandle: NetworkIndicatorCancellable {
    private let timer: LockedState<(any DispatchSourceTimer)?>

    init(timer: any DispatchSourceTimer) {
        self.timer = LockedState(timer)
    }

    func cancel() {
        let source = timer.withLock { timer in
            defer { timer = nil }
            return timer
        }
        source?.cancel()
    }
}
