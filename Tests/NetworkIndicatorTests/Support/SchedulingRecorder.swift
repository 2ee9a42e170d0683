import Foundation
import NetworkIndicatorTesting

@testable import NetworkIndicator

/// A manual scheduler that also records what each `schedule` call asked for, and can run a
/// test's code inside the next `schedule` call, before it returns the timer (to force a race).
final class SchedulingRecorder: NetworkIndicatorScheduler {
    struct Request {
        var delay: TimeInterval
        var interval: TimeInterval?
        var leeway: TimeInterval
    }

    /// Runs the timers, and tells how many are pending.
    let base = ManualNetworkIndicatorScheduler()
    private let recorded = LockedState<[Request]>([])
    /// Test code handed the scheduled work.
    typealias Hook = @MainActor @Sendable (_ work: @escaping @MainActor @Sendable () -> Void) -> Void
    private let nextHook = LockedState<Hook?>(nil)

    /// Runs `hook` on the main actor inside the next `schedule` call, with the scheduled work,
    /// before the call returns. Call `schedule` on the main actor while a hook is set.
    func beforeNextTimerIsReturned(_ hook: @escaping Hook) {
        nextHook.withLock { $0 = hook }
    }

    var requests: [Request] { recorded.withLock { $0 } }
    var now: TimeInterval { base.now }

    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        base.enqueue(work)
    }

    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        recorded.withLock { $0.append(Request(delay: delay, interval: interval, leeway: leeway)) }
        let timer = base.schedule(after: delay, repeating: interval, leeway: leeway, work)
        if let hook = nextHook.withLock({ hook in
            defer { hook = nil }
            return hook
        }) {
            MainActor.assumeIsolated { hook(work) }
        }
        return timer
    }
}
