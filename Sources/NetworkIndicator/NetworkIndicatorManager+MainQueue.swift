import Foundation

/// The main-queue side: reconciling the policy with the registry, the timers, the sweep and
/// the delivery to outputs. Every function here runs on the main actor, one at a time; each
/// makes a plan under the lock and performs it after releasing the lock.
extension NetworkIndicatorManager {
    /// Queues one reconcile on the main queue. Callers have marked the hop pending under the
    /// lock, so at most one is queued at a time however many calls arrive.
    func enqueueReconcile() {
        scheduler.enqueue { [weak self] in
            self?.reconcile()
        }
    }

    @MainActor
    func reconcile() {
        let now = scheduler.now
        let plan = state.withLock { state in
            state.main.isHopPending = false
            return state.makePlan(now: now)
        }
        perform(plan)
    }

    @MainActor
    func policyTimerFired(generation: UInt64) {
        let now = scheduler.now
        let plan = state.withLock { state -> ManagerState.MainQueuePlan? in
            guard generation == state.main.policyTimerGeneration else { return nil }
            var plan = state.makePlan(now: now) { $0.timerFired(now: now) }
            // The one-shot timer has fired; release it unless the plan replaced it already.
            if generation == state.main.policyTimerGeneration, let timer = state.main.policyTimer {
                plan.cancelledTimers.append(timer)
                state.main.policyTimer = nil
            }
            return plan
        }
        if let plan { perform(plan) }
    }

    /// Ends the tasks of tokens that died or report completion, reports stale tasks, then
    /// reconciles. O(live tokens).
    @MainActor
    func sweep() {
        let now = scheduler.now
        var found = state.withLock { state in
            state.registry.sweep(now: now, staleThreshold: state.settings.staleTaskThreshold)
        }
        // Asked without the lock: a completion check is the caller's code.
        let finished = found.completionCandidates.filter {
            ($0.object as? any NetworkActivityCompletionReporting)?.isNetworkActivityFinished == true
        }
        let (plan, handler) = state.withLock { state in
            for candidate in finished {
                state.registry.finishAll(candidate.key, ifStillOwnedBy: candidate.object)
            }
            return (state.makePlan(now: now), state.settings.diagnosticsHandler)
        }
        // Objects that lost their last other owner during the sweep die here, lock released.
        found.keptAlive.removeAll()
        found.completionCandidates.removeAll()
        perform(plan)
        // A token that reported completion in this very sweep is not stale.
        let finishedKeys = Set(finished.map(\.key))
        for stale in found.staleTasks where stale.key.map({ !finishedKeys.contains($0) }) ?? true {
            handler(NetworkIndicatorDiagnostic(kind: .staleTask(age: stale.age), label: stale.label))
        }
    }

    @MainActor
    private func perform(_ plan: ManagerState.MainQueuePlan) {
        for timer in plan.cancelledTimers {
            timer.cancel()
        }
        if let (delay, generation) = plan.policyTimer {
            let timer = scheduler.schedule(after: delay, repeating: nil, leeway: min(delay * 0.1, 0.05)) {
                [weak self] in
                self?.policyTimerFired(generation: generation)
            }
            let isCurrent = state.withLock { state in
                guard state.main.policyTimerGeneration == generation else { return false }
                state.main.policyTimer = timer
                return true
            }
            if !isCurrent { timer.cancel() }
        }
        if let interval = plan.sweepInterval {
            let timer = scheduler.schedule(after: interval, repeating: interval, leeway: interval * 0.1) {
                [weak self] in
                self?.sweep()
            }
            let isCurrent = state.withLock { state in
                guard state.main.sweepTimerInterval == interval, state.main.sweepTimer == nil else {
                    return false
                }
                state.main.sweepTimer = timer
                return true
            }
            if !isCurrent { timer.cancel() }
        }
        if let visibility = plan.visibility {
            for entry in plan.outputs where isAttached(entry.output) {
                entry.output.networkIndicatorVisibilityDidChange(visibility)
            }
            for stream in plan.updatedStreams {
                stream.yield(visibility)
            }
        }
        for stream in plan.primedStreams {
            stream.yield(plan.currentVisibility)
        }
        if let count = plan.count {
            for entry in plan.outputs where entry.receivesCount && isAttached(entry.output) {
                entry.output.networkIndicatorActiveTaskCountDidChange(count)
            }
        }
    }

    @MainActor
    private func isAttached(_ output: any NetworkIndicatorOutput) -> Bool {
        state.withLock { state in state.main.outputs.contains { $0.output === output } }
    }
}
