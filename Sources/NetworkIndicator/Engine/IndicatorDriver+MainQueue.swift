import Foundation

/// The main-queue side of the driver: queuing reconciles, and performing the machine's answers
/// after the lock (timers first, then outputs and streams). Nothing here takes the driver's
/// lock except through the primitives of `IndicatorDriver.swift`.
extension IndicatorDriver {
    /// The pending hop runs: the machine brings the policy and the timers up to date.
    @MainActor
    func reconcile() {
        let now = scheduler.now
        perform { $0.machine.reconcile($0.activity, now: now) }
    }

    /// The delay timer of `generation` fired.
    @MainActor
    func delayTimerFired(generation: UInt64) {
        let now = scheduler.now
        perform { $0.machine.delayTimerFired(generation: generation, $0.activity, now: now) }
    }

    /// Installs the timers just started, in one go; returns those whose generation is no
    /// longer current (replaced meanwhile, or shut down), to cancel after the lock.
    func install(
        _ started: [(IndicatorStateMachine.Timer, UInt64, any NetworkIndicatorCancellable)]
    ) -> [any NetworkIndicatorCancellable] {
        withState { state in
            started.compactMap { timer, generation, handle -> (any NetworkIndicatorCancellable)? in
                guard !state.isShutDown, state.machine.isCurrent(timer, generation: generation) else { return handle }
                state.timers[timer] = handle
                return nil
            }
        }
    }

    /// Queues one reconcile on the main queue; the machine allows one pending at a time.
    func enqueueReconcile() {
        scheduler.enqueue { [liveDriver] in liveDriver.withLock { $0 }?.reconcile() }
    }

    /// Performs a machine's answer, lock released: cancels the timers it `stopped`, starts the
    /// ones it asks for, then tells the outputs and `streams`.
    @MainActor
    func perform(
        _ reconciliation: IndicatorStateMachine.Reconciliation,
        stopping stopped: [any NetworkIndicatorCancellable],
        streams: StreamRegistry.Delivery
    ) {
        for timer in stopped { timer.cancel() }
        startTimers(reconciliation.timerChanges)
        let released = delivery.deliver(
            visibility: reconciliation.visibility,
            count: reconciliation.count,
            streams: streams
        )
        countObserversLeft(released)
    }

    /// Starts the timers `changes` ask for, then installs them under the lock in one go; a
    /// timer whose generation is no longer current (replaced meanwhile, or shut down) is
    /// cancelled instead.
    @MainActor
    private func startTimers(_ changes: [IndicatorStateMachine.Timer: IndicatorStateMachine.TimerChange]) {
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
        for handle in install(started) { handle.cancel() }
    }
}
