public import Foundation
public import NetworkIndicator

/// A scheduler whose time stands still until you advance it: for deterministic tests of the
/// manager and of code that uses it.
///
/// Nothing runs until the test calls ``advance(by:)`` or ``runPendingWork()`` on the main
/// actor; work then runs on the calling (main) thread in deadline order, first-scheduled first
/// among equals. Work scheduled while advancing runs in the same call if it falls due within the
/// advanced interval.
///
/// ```swift
/// let scheduler = ManualNetworkIndicatorScheduler()
/// let manager = NetworkIndicatorManager(scheduler: scheduler)
/// let token = manager.beganNetworkTask()
/// scheduler.runPendingWork()            // the main-queue hop: the indicator shows
/// ```
///
/// Counters such as ``enqueuedWorkCount`` and ``pendingWorkCount`` let a test prove how much
/// main-thread work the manager asked for. The scheduler is safe to schedule on from any
/// thread.
public final class ManualNetworkIndicatorScheduler: NetworkIndicatorScheduler {
    /// Deadlines and intervals in whole nanoseconds since the clock's origin: exact at any
    /// origin (a `Double` of seconds holds no nanosecond past about 1.5e6 s), and compared as a
    /// dispatch timer compares them.
    private struct Item {
        var deadline: Int64
        var interval: Int64?
        var work: @MainActor @Sendable () -> Void
    }

    private struct State {
        /// The reading at ``elapsed`` 0.
        let origin: TimeInterval
        /// Nanoseconds the clock was advanced by, in all.
        var elapsed: Int64 = 0
        var now: TimeInterval { reading(at: elapsed) }

        /// The clock's reading `nanoseconds` after its origin.
        func reading(at nanoseconds: Int64) -> TimeInterval { origin + TimeInterval(nanoseconds) / 1e9 }
        var items: [UInt64: Item] = [:]
        var nextID: UInt64 = 0
        var enqueuedWorkCount = 0
        var scheduledTimerCount = 0
        var executedWorkCount = 0

        @discardableResult
        mutating func insert(_ item: Item) -> UInt64 {
            let id = nextID
            nextID += 1
            items[id] = item
            return id
        }
    }

    private let state: LockedState<State>

    /// Creates a scheduler whose clock reads `now` until advanced.
    public init(now: TimeInterval = 0) {
        state = LockedState(State(origin: now))
    }

    /// The manual clock's current reading, in seconds.
    public var now: TimeInterval {
        state.withLock { $0.now }
    }

    /// How many main-queue hops (``enqueue(_:)`` calls) were ever requested.
    public var enqueuedWorkCount: Int {
        state.withLock { $0.enqueuedWorkCount }
    }

    /// How many timers (``schedule(after:repeating:leeway:_:)`` calls) were ever started.
    public var scheduledTimerCount: Int {
        state.withLock { $0.scheduledTimerCount }
    }

    /// How many pieces of work (hops and timer firings) have run so far.
    public var executedWorkCount: Int {
        state.withLock { $0.executedWorkCount }
    }

    /// Hops not yet run plus timers not yet fired or cancelled (a repeating timer counts once).
    public var pendingWorkCount: Int {
        state.withLock { $0.items.count }
    }

    /// The deadline of the earliest pending work, or `nil` when nothing is pending.
    public var nextDeadline: TimeInterval? {
        state.withLock { state in
            state.items.values.map(\.deadline).min().map(state.reading(at:))
        }
    }

    /// Records `work` to run at the current time on the next ``advance(by:)`` or
    /// ``runPendingWork()``.
    public func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        state.withLock { state in
            state.enqueuedWorkCount += 1
            state.insert(Item(deadline: state.elapsed, interval: nil, work: work))
        }
    }

    /// Records a timer that fires when the manual clock reaches `now + delay` (and then every
    /// `interval`, if given; intervals shorter than a millisecond, or not a number, are treated
    /// as one millisecond; a negative delay, or one that is not a number, as none; one past
    /// about 292 years, as that). `leeway` is ignored: manual time is exact, and counted in
    /// whole nanoseconds, as a dispatch timer counts it, from any origin (a timer repeating
    /// every 0.1 s fires three times in 0.3 s).
    public func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        let id = state.withLock { state in
            state.scheduledTimerCount += 1
            return state.insert(
                Item(
                    deadline: Self.adding(state.elapsed, Self.nanoseconds(delay)),
                    interval: interval.map { Self.nanoseconds($0 >= 0.001 ? $0 : 0.001) },
                    work: work
                )
            )
        }
        return Handle(scheduler: self, id: id)
    }

    /// Moves the clock forward by `seconds`, running every piece of work that falls due on
    /// the way, in order, on the main actor.
    ///
    /// A negative `seconds`, or one that is not a number, is treated as zero: the clock never
    /// goes back.
    @MainActor
    public func advance(by seconds: TimeInterval) {
        let target = state.withLock { Self.adding($0.elapsed, Self.nanoseconds(seconds)) }
        while let work = nextWork(dueBy: target) {
            work()
        }
    }

    /// Runs everything due now (main-queue hops, expired timers) without moving the clock.
    @MainActor
    public func runPendingWork() {
        advance(by: 0)
    }

    private func nextWork(dueBy target: Int64) -> (@MainActor @Sendable () -> Void)? {
        state.withLock { state in
            let due = state.items
                .filter { $0.value.deadline <= target }
                .min { ($0.value.deadline, $0.key) < ($1.value.deadline, $1.key) }
            guard let (id, item) = due else {
                state.elapsed = max(state.elapsed, target)
                return nil
            }
            state.elapsed = max(state.elapsed, item.deadline)
            // A repeating timer due at the clock's end fires once there (not forever).
            if let interval = item.interval, item.deadline < .max {
                state.items[id]?.deadline = Self.adding(item.deadline, interval)
            } else {
                state.items[id] = nil
            }
            state.executedWorkCount += 1
            return item.work
        }
    }

    /// `seconds` in whole nanoseconds, as a dispatch timer counts them (0.1 + 0.1 + 0.1 falls
    /// due at 0.3); not positive, or not a number: 0; past about 292 years: that.
    private static func nanoseconds(_ seconds: TimeInterval) -> Int64 {
        guard seconds > 0 else { return 0 }
        return Int64((min(seconds, 9.2e9) * 1e9).rounded())
    }

    /// `a + b`, or `Int64.max` where the sum would pass it: a clock advanced without end stops there.
    private static func adding(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Weak: whoever keeps a timer must not keep the scheduler (and the work queued on it) alive,
    /// or a manager's queued work and its timers would hold each other once the test lets go.
    /// `@unchecked`: the weak reference is set once, in `init`, and weak loads are thread-safe.
    private final class Handle: NetworkIndicatorTimer, @unchecked Sendable {
        private weak var scheduler: ManualNetworkIndicatorScheduler?
        private let id: UInt64

        init(scheduler: ManualNetworkIndicatorScheduler, id: UInt64) {
            self.scheduler = scheduler
            self.id = id
        }

        func cancel() {
            scheduler?.state.withLock { $0.items[id] = nil }
        }
    }
}
