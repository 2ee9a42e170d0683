import Foundation

/// What the driver does with its lock released: the machine's answers on the main actor (timers
/// first, then outputs and streams), the sweep's middle, attaching outputs, diagnostics. The lock
/// is reached only through the methods of `IndicatorDriver.swift`.
extension IndicatorDriver {
    /// Passes a diagnostic to the handler, outside the lock.
    func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        diagnosticsHandler(NetworkIndicatorDiagnostic(kind: kind, label: label))
    }

    /// Performs a machine's answer, lock released: stops timers, starts timers, then tells outputs and streams.
    @MainActor
    func perform(_ answer: IndicatorTree.Delivery) {
        for timer in answer.stoppedTimers { timer.cancel() }
        startTimers(answer.reconciliation.timerChanges)
        let released = delivery.deliver(
            visibility: answer.reconciliation.visibility,
            count: answer.reconciliation.count,
            streams: answer.streams
        )
        countObserversLeft(released)
    }

    /// Starts the timers `changes` ask for, then installs them in one lock hold; a timer whose
    /// generation is no longer current (replaced meanwhile, or shut down) is cancelled instead.
    @MainActor
    private func startTimers(_ changes: [IndicatorStateMachine.TimerKind: IndicatorStateMachine.TimerChange]) {
        var started: [(IndicatorStateMachine.TimerKind, UInt64, any NetworkIndicatorTimer)] = []
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

    // MARK: - The sweep

    /// Ends the tasks of tokens that died or report completion, reports stale tasks, then brings
    /// the machine up to date. O(live tokens). Runs on the sweep timer.
    @MainActor
    func sweep() {
        let now = scheduler.now
        guard var found = sweepRegistry(now: now) else { return }
        // Asked without the lock: a completion check is the caller's code.
        let finished = found.completionCandidates.filter {
            ($0.object as? any NetworkActivityCompletionReporting)?.isNetworkActivityFinished == true
        }
        let handler = finishSweep(completed: finished, now: now)
        // Objects that lost their last other owner during the sweep die here, lock released.
        found.keptAlive.removeAll()
        found.completionCandidates.removeAll()
        // A token that reported completion in this very sweep is not stale.
        let finishedKeys = Set(finished.map(\.key))
        for stale in found.staleTasks where stale.key.map({ !finishedKeys.contains($0) }) ?? true {
            handler(NetworkIndicatorDiagnostic(kind: .staleTask(age: stale.age), label: stale.label))
        }
    }

    // MARK: - Outputs

    /// Attaches `output` and tells it the visibility (and, if it wants counts, the last reconciled
    /// count) at once; nothing if attached already. Both ``OutputDelivery`` and the machine hear of it.
    @MainActor
    func addOutput(_ output: any NetworkIndicatorOutput) {
        let receivesCount = output.receivesActiveTaskCount
        guard delivery.attach(output, receivesCount: receivesCount) else { return }
        let count = outputAttached(receivesCount: receivesCount)
        output.networkIndicatorVisibilityDidChange(delivery.isVisible)
        if let count {
            output.networkIndicatorActiveTaskCountDidChange(count)
        }
    }

    /// Detaches `output`, if it is attached; returns whether it was.
    @MainActor
    @discardableResult
    func removeOutput(_ output: any NetworkIndicatorOutput) -> Bool {
        guard let receivedCount = delivery.detach(output) else { return false }
        countObserversLeft(receivedCount ? 1 : 0)
        return true
    }
}
