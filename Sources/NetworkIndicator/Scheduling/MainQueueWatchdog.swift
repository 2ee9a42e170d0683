import Dispatch
import Foundation

/// Notices a process whose main queue never runs (a command-line tool with a synchronous `main`
/// that never calls `dispatchMain()`, runs `RunLoop.main` or awaits), where a manager on
/// ``MainQueueScheduler`` counts but never tells its outputs, never sweeps and never hides, and
/// says so once through the manager's diagnostics handler, with the fix.
///
/// Nothing is added to a begin or a finish: a root manager on the main-queue scheduler starts a
/// watch when it is made. The first watch of the process enqueues one marker on the main queue;
/// each watch then looks, once a second on a global queue, whether the marker has run. It stops
/// as soon as it has (in an app, at the first turn of the main run loop), when its manager goes
/// away, or once it has reported: when the marker has waited ``gracePeriod`` seconds and its
/// manager has tasks open.
enum MainQueueWatchdog {
    /// Seconds the marker may wait on the main queue before a manager with open tasks reports.
    static let gracePeriod: TimeInterval = 5
    /// Seconds between two looks.
    static let checkInterval: TimeInterval = 1

    /// What one look decides.
    enum Verdict: Equatable {
        case keepWatching
        case stop
        case report(openTasks: Int)
    }

    /// The decision of one look: `markerRan` (the main queue ran the marker), `waited` (seconds
    /// since the marker was enqueued), `openTasks` (the manager's count, `nil` once it is gone).
    static func verdict(markerRan: Bool, waited: TimeInterval, openTasks: Int?) -> Verdict {
        guard !markerRan, let openTasks else { return .stop }
        return waited >= gracePeriod && openTasks > 0 ? .report(openTasks: openTasks) : .keepWatching
    }

    /// The process's one marker: when it was enqueued, and whether the main queue ran it.
    private static let marker: LockedState<(enqueuedAt: TimeInterval, ran: Bool)> = {
        let marker = LockedState((enqueuedAt: MainQueueScheduler().now, ran: false))
        DispatchQueue.main.async { marker.withLock { $0.ran = true } }
        return marker
    }()

    /// Watches the main queue for the manager of `driver` (until it is gone). Looks every
    /// ``checkInterval`` seconds on a global queue.
    static func watch(_ driver: IndicatorDriver) {
        let marker = marker
        watch(
            driver,
            marker: { marker.withLock { ($0.enqueuedAt, $0.ran) } },
            now: { MainQueueScheduler().now },
            every: { interval, look in GlobalQueueTimer(interval: interval, look) }
        )
    }

    /// ``watch(_:)`` with its inputs given: the marker's state, the clock, and a repeating
    /// timer (each look returns whether to go on).
    static func watch(
        _ driver: IndicatorDriver,
        marker: @escaping @Sendable () -> (enqueuedAt: TimeInterval, ran: Bool),
        now: @escaping @Sendable () -> TimeInterval,
        every: (TimeInterval, @escaping @Sendable () -> Bool) -> any NetworkIndicatorTimer
    ) {
        // Not the driver, even weakly: a weak reference gives it a side table, which slows its
        // retains and which LeakSanitizer cannot trace from `.shared`.
        let probe = driver.probe
        _ = every(checkInterval) {
            let (enqueuedAt, ran) = marker()
            let verdict = Self.verdict(markerRan: ran, waited: now() - enqueuedAt, openTasks: probe.openTasks())
            switch verdict {
            case .keepWatching:
                return true
            case .stop:
                return false
            case .report(let openTasks):
                probe.report(.mainQueueNotRunning(openTasks: openTasks), "main queue")
                return false
            }
        }
    }
}

/// A repeating timer on a global queue (not the main queue, which is what is watched), which
/// ends itself when a look returns `false`. It keeps itself alive while it runs.
private final class GlobalQueueTimer: NetworkIndicatorTimer {
    private let source: LockedState<(any DispatchSourceTimer)?>

    init(interval: TimeInterval, _ look: @escaping @Sendable () -> Bool) {
        source = LockedState(DispatchSource.makeTimerSource(queue: .global(qos: .utility)))
        source.withLock { timer in
            timer?.setEventHandler { [self] in
                if !look() { cancel() }
            }
            timer?.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(100))
            timer?.resume()
        }
    }

    func cancel() {
        source.withLock { source in
            source?.cancel()
            source = nil
        }
    }
}
