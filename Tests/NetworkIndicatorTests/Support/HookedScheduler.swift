import Foundation
import NetworkIndicatorTesting

@testable import NetworkIndicator

/// A manual scheduler whose next `enqueue` (a hop asked for by an event, enqueued just after
/// that event's lock) or next reading of `now` first runs a hook: another thread's call landing
/// exactly there.
final class HookedScheduler: NetworkIndicatorScheduler, Sendable {
    let base = ManualNetworkIndicatorScheduler()
    private let hook = LockedState<(@Sendable () -> Void)?>(nil)
    private let nowHook = LockedState<(@Sendable () -> Void)?>(nil)

    func beforeNextEnqueue(_ body: @escaping @Sendable () -> Void) {
        hook.withLock { $0 = body }
    }

    /// Runs `body` before the next reading of `now`: arm it only where that reading is taken
    /// outside every lock of the package's.
    func beforeNextNow(_ body: @escaping @Sendable () -> Void) {
        nowHook.withLock { $0 = body }
    }

    var now: TimeInterval {
        Self.runOnce(nowHook)
        return base.now
    }

    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        Self.runOnce(hook)
        base.enqueue(work)
    }

    /// Takes the hook out of `slot`, then runs it outside the slot's lock (it may read `now`).
    private static func runOnce(_ slot: LockedState<(@Sendable () -> Void)?>) {
        let body = slot.withLock { hook in
            defer { hook = nil }
            return hook
        }
        body?()
    }

    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        base.schedule(after: delay, repeating: interval, leeway: leeway, work)
    }
}
