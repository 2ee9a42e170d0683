import Foundation
import NetworkIndicator

/// The unread-body deadlines of the open response bodies counted on one scheduler, behind one
/// timer: a body registers its deadline instead of making a timer of its own, so that a request
/// whose body is read at once pays a dictionary entry, not a timer made and cancelled (a
/// `DispatchSourceTimer` on the main queue: 8 to 34 µs and 12 mallocs a request, see
/// `Benchmarks/README.md`).
///
/// The timer runs for the earliest deadline only, and is armed again at each firing for the
/// next. With one timeout for every body, a new body's deadline is never earlier than one already
/// waiting, so a steady stream of requests arms no timer beyond the one running. Bodies are held
/// weakly; a body that ends forgets its deadline. Safe from any thread; each due body is told
/// outside the lock.
final class UnreadBodyClock: Sendable {
    private struct Deadline {
        weak var body: ResponseBodyActivity?
        let at: TimeInterval
    }

    private struct State {
        var deadlines: [ObjectIdentifier: Deadline] = [:]
        var timer: (any NetworkIndicatorTimer)?
        /// When the running timer fires, `nil` while none runs.
        var armedFor: TimeInterval?
    }

    let scheduler: any NetworkIndicatorScheduler
    private let state = LockedValue(State())

    init(scheduler: any NetworkIndicatorScheduler) {
        self.scheduler = scheduler
    }

    /// How many bodies wait for their deadline.
    var waitingCount: Int { state.withLock { $0.deadlines.count } }

    /// Tells `body` (``ResponseBodyActivity/unreadTimerFired()``) once `delay` seconds have
    /// passed, replacing its earlier deadline if any.
    func tell(_ body: ResponseBodyActivity, after delay: TimeInterval) {
        let at = scheduler.now + max(delay, 0)
        let needsTimer = state.withLock { state in
            state.deadlines[ObjectIdentifier(body)] = Deadline(body: body, at: at)
            return state.armedFor.map { $0 > at } ?? true
        }
        if needsTimer { arm(for: at) }
    }

    /// Forgets the deadline of the body `body` identifies: its task ended (from its `deinit`
    /// too, hence an identifier, not the body).
    func forget(_ body: ObjectIdentifier) {
        state.withLock { _ = $0.deadlines.removeValue(forKey: body) }
    }

    /// Runs the timer for `at`, unless one runs for an earlier time already.
    private func arm(for at: TimeInterval) {
        let delay = max(at - scheduler.now, 0)
        let timer = scheduler.schedule(after: delay, repeating: nil, leeway: max(0, min(delay / 10, 1))) {
            [weak self] in
            self?.fire()
        }
        let superseded = state.withLock { state -> (any NetworkIndicatorTimer)? in
            // Another call armed for an earlier time meanwhile: this timer is not needed.
            if let armedFor = state.armedFor, armedFor <= at { return timer }
            defer { (state.timer, state.armedFor) = (timer, at) }
            return state.timer
        }
        superseded?.cancel()
    }

    /// Tells the bodies whose deadline has come, after arming the timer for the next one.
    private func fire() {
        let now = scheduler.now
        let (due, next) = state.withLock { state -> ([ResponseBodyActivity], TimeInterval?) in
            (state.timer, state.armedFor) = (nil, nil)
            var due: [ResponseBodyActivity] = []
            var next: TimeInterval?
            // Kept: the bodies still alive whose deadline has not come.
            state.deadlines = state.deadlines.filter { _, deadline in
                guard let body = deadline.body else { return false }
                if deadline.at <= now + ResponseBodyActivityState.deadlineTolerance {
                    due.append(body)
                    return false
                }
                next = min(next ?? deadline.at, deadline.at)
                return true
            }
            return (due, next)
        }
        if let next { arm(for: next) }
        for body in due { body.unreadTimerFired() }
    }
}

/// The middleware's clocks, one per scheduler its requests count on: the scheduler given at
/// creation, or each manager's own (a manager's scheduler never changes). Managers on one
/// scheduler share its clock: the main queue's (every `MainQueueScheduler` is the same queue),
/// or one object's; a scheduler of another value type cannot be told equal to another, so its
/// managers each get one. A clock is kept while a manager that asked for it lives, and dropped
/// once none does and a clock is asked for again.
final class UnreadBodyClocks: Sendable {
    private enum Key: Hashable {
        case mainQueue
        /// A scheduler object, held by its clock: its address names no other while kept.
        case scheduler(ObjectIdentifier)
        case manager(ObjectIdentifier)
    }

    private struct Entry {
        var managers: [WeakManager]
        let clock: UnreadBodyClock
    }

    private struct WeakManager {
        weak var manager: NetworkIndicatorManager?
    }

    private let fixed: UnreadBodyClock?
    private let entries = LockedValue<[Key: Entry]>([:])

    init(scheduler: (any NetworkIndicatorScheduler)?) {
        fixed = scheduler.map(UnreadBodyClock.init(scheduler:))
    }

    /// How many clocks are kept.
    var count: Int { entries.withLock { $0.count } }

    /// How many managers the kept clocks remember.
    var managerCount: Int { entries.withLock { $0.values.reduce(0) { $0 + $1.managers.count } } }

    /// The clock of the requests that count in `manager`.
    func clock(for manager: NetworkIndicatorManager) -> UnreadBodyClock {
        clock(for: manager, at: ObjectIdentifier(manager))
    }

    /// ``clock(for:)`` with the manager's address given, so that a test can give a gone
    /// manager's: a manager made where a gone one lived must not get the gone one's clock.
    func clock(for manager: NetworkIndicatorManager, at address: ObjectIdentifier) -> UnreadBodyClock {
        if let fixed { return fixed }
        let scheduler = manager.scheduler
        let key: Key =
            if scheduler is MainQueueScheduler {
                .mainQueue
            } else if type(of: scheduler) is AnyClass {
                .scheduler(ObjectIdentifier(scheduler as AnyObject))
            } else {
                .manager(address)
            }
        return entries.withLock { entries in
            if var entry = entries[key] {
                let isKnown = entry.managers.contains { $0.manager === manager }
                // A clock kept under a manager's address is that manager's alone: another one
                // there now (the first gone) gets a clock on its own scheduler.
                if isKnown || key != .manager(address) {
                    if !isKnown {
                        // A screen's manager comes and goes: the gone ones are forgotten here.
                        entry.managers.removeAll { $0.manager == nil }
                        entry.managers.append(WeakManager(manager: manager))
                        entries[key] = entry
                    }
                    return entry.clock
                }
            }
            entries = entries.filter { $0.value.managers.contains { $0.manager != nil } }
            let clock = UnreadBodyClock(scheduler: scheduler)
            entries[key] = Entry(managers: [WeakManager(manager: manager)], clock: clock)
            return clock
        }
    }
}
