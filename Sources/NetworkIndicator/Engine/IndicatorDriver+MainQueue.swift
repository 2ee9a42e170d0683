import Foundation

/// The main-queue side of the driver: reconciles, timer firings, and performing the machine's
/// answers after the lock (timers, then outputs and streams).
extension IndicatorDriver {
    /// Queues one reconcile on the main queue; the machine allows one pending at a time.
    func enqueueReconcile() {
        scheduler.enqueue { [liveDriver] in liveDriver.withLock { $0 }?.reconcile() }
    }

    @MainActor
    func reconcile() {
        let now = scheduler.now
        perform {
            $0.machine.reconcile(
                count: $0.activeTaskCount,
                needsSweep: $0.needsSweep,
                settings: $0.settings,
                now: now
            )
        }
    }

    @MainActor
    func delayTimerFired(generation: UInt64) {
        let now = scheduler.now
        perform {
            $0.machine.delayTimerFired(
                generation: generation,
                count: $0.activeTaskCount,
                needsSweep: $0.needsSweep,
                settings: $0.settings,
                now: now
            )
        }
    }

    /// Asks the machine under the lock (with `event`), then performs its answer after the lock:
    /// timers first, then the outputs and streams.
    @MainActor
    func perform(_ event: (inout State) -> IndicatorStateMachine.Reconciliation?) {
        let taken = state.withLock {
            state -> (IndicatorStateMachine.Reconciliation, [any NetworkIndicatorCancellable], StreamRegistry.Delivery)?
            in
            guard !state.isShutDown, let reconciliation = event(&state) else { return nil }
            let stopped = reconciliation.timerChanges.keys.compactMap { state.timers.removeValue(forKey: $0) }
            let streams = state.streams.takeDelivery(visibilityChanged: reconciliation.visibility != nil)
            return (reconciliation, stopped, streams)
        }
        guard let (reconciliation, stopped, streams) = taken else { return }
        for timer in stopped { timer.cancel() }
        startTimers(reconciliation.timerChanges)
        let releasedCountObservers = delivery.deliver(
            visibility: reconciliation.visibility,
            count: reconciliation.count,
            streams: streams
        )
        if releasedCountObservers > 0 {
            state.withLock { $0.machine.countObserversChanged(by: -releasedCountObservers) }
        }
    }

    /// Starts the timers `changes` ask for, then installs them under the lock in one go; a
    /// timer whose generation is no longer current (replaced meanwhile, or shut down) is
    /// cancelled instead.
    @MainActor
    func startTimers(_ changes: [IndicatorStateMachine.Timer: IndicatorStateMachine.TimerChange]) {
        var started: [(IndicatorStateMachine.Timer, UInt64, any NetworkIndicatorCancellable)] = []
        for (timer, change) in changes {
            guard case .start(let delay, let interval, let generation) = change else { continue }
            let leeway = interval.map { $0 * 0.1 } ?? min(delay * 0.1, 0.05)
            let handle = scheduler.schedule(after: delay, repeating: interval, leeway: leeway) {
                [liveDriver] in
                let driver = liveDriver.withLock { $0 }
                switch timer {
                case .delay: driver?.delayTimerFired(generation: generation)
                case .sweep: driver?.sweep()
                }
            }
            started.append((timer, generation, handle))
        }
        guard !started.isEmpty else { return }
        let stale = state.withLock { state in
            started.compactMap { timer, generation, handle -> (any NetworkIndicatorCancellable)? in
                guard !state.isShutDown, state.machine.isCurrent(timer, generation: generation) else {
                    return handle
                }
                state.timers[timer] = handle
                return nil
            }
        }
        for handle in stale { handle.cancel() }
    }
}
