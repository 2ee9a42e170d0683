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
    ///
    /// A negative `delay` (or not a number) counts as zero, an `interval` under a microsecond
    /// (or not a number) as one microsecond and one over 10⁹ s (about 31 years) as 10⁹ s, and
    /// `leeway` is kept between zero and one second (NaN as zero).
    public func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.setEventHandler {
            MainActor.assumeIsolated { work() }
        }
        // Seconds as `Double`: no `Int` overflow on 32-bit platforms, where nanoseconds past
        // 2.1 s would not fit.
        let deadline = DispatchTime.now() + (delay > 0 ? delay : 0)
        let leeway = Self.dispatchLeeway(leeway)
        if let interval {
            timer.schedule(deadline: deadline, repeating: Self.dispatchInterval(interval), leeway: leeway)
        } else {
            timer.schedule(deadline: deadline, repeating: .never, leeway: leeway)
        }
        timer.resume()
        return DispatchTimerHandle(timer: timer)
    }

    /// `seconds` between firings as Dispatch takes them: at least a microsecond (NaN too) and at
    /// most 10⁹ s (about 31 years; infinity too), since Dispatch converts them to unsigned 64-bit
    /// nanoseconds, which a negative, NaN or larger number does not fit (it traps).
    static func dispatchInterval(_ seconds: TimeInterval) -> TimeInterval {
        seconds >= 0.000_001 ? min(seconds, 1_000_000_000) : 0.000_001
    }

    /// `seconds` of leeway as Dispatch takes it: in microseconds (so that it fits an `Int` on
    /// 32-bit platforms), a negative value (or NaN) as zero, and at most one second.
    ///
    /// A function of its own because Dispatch offers no way to read a timer's leeway back, and
    /// on Linux a timer fires at its deadline whatever its leeway, so no timing test can see it.
    static func dispatchLeeway(_ seconds: TimeInterval) -> DispatchTimeInterval {
        .microseconds(Int((seconds >= 0 ? min(seconds, 1) : 0) * 1_000_000))
    }
}

/// Owns the timer source, reached only through a lock: it goes in as `sending` and never comes
/// out, so the handle is `Sendable` although `DispatchSourceTimer` is not declared so.
private final class DispatchTimerHandle: NetworkIndicatorTimer {
    private let timer: LockedState<(any DispatchSourceTimer)?>

    init(timer: sending any DispatchSourceTimer) {
        self.timer = LockedState(timer)
    }

    /// Cancels the source under the lock, once: libdispatch documents cancelling as safe from
    /// any thread, and it runs no code of ours synchronously.
    func cancel() {
        timer.withLock { timer in
            timer?.cancel()
            timer = nil
        }
    }
}

// MARK: - Whether code runs on the main queue

/// Whether code runs on the main queue. `Thread.isMainThread` cannot tell: on Linux a process
/// may drain the main queue on a thread that Foundation does not take for its main one (an
/// XCTest bundle does), so the queue is marked with a key of its own instead.
///
/// `@unchecked Sendable`: the key (not `Sendable` in Apple's Dispatch) is made and set on the
/// main queue once, in `init`, and only read after.
final class MainQueue: @unchecked Sendable {
    private static let shared = MainQueue()
    private let key = DispatchSpecificKey<Bool>()

    private init() {
        DispatchQueue.main.setSpecific(key: key, value: true)
    }

    /// Whether the caller runs on the main queue (the main actor included).
    static var isCurrent: Bool { DispatchQueue.getSpecific(key: shared.key) == true }
}
