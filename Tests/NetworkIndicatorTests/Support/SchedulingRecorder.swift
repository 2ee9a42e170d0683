import Foundation
import NetworkIndicatorTesting

@testable import NetworkIndicator

/// A manual scheduler that also records what each `schedule` call asked for.
final class SchedulingRecorder: NetworkIndicatorScheduler {
    struct Request {
        var delay: TimeInterval
        var interval: TimeInterval?
        var leeway: TimeInterval
    }

    private let base = ManualNetworkIndicatorScheduler()
    private let recorded = LockedState<[Request]>([])

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
        return base.schedule(after: delay, repeating: interval, leeway: leeway, work)
    }
}
