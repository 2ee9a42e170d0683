import Foundation

/// Everything a manager knows, kept behind its one lock.
struct ManagerState {
    var registry = TaskRegistry()
    var settings: Settings
    var main = MainQueueState()

    /// Values set from any thread and read at the next event.
    struct Settings {
        var completionCheckInterval: TimeInterval = 1
        var startDelay: TimeInterval = 0
        var completionDelay: TimeInterval = 0.2
        var staleTaskThreshold: TimeInterval?
        var isEnabled = true
        var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler
    }

    /// What the main-queue side owns. Only main-actor code changes it (apart from stream
    /// registration and ``isHopPending``), so a plan made under the lock stays valid until it
    /// has been performed.
    struct MainQueueState {
        /// A reconcile hop is queued; later changes ride on it.
        var isHopPending = false
        var policy = VisibilityPolicy()
        var policyTimer: (any NetworkIndicatorCancellable)?
        /// Bumped whenever the policy timer is started or cancelled; a firing that carries an
        /// older value is stale and ignored.
        var policyTimerGeneration: UInt64 = 0
        var sweepTimer: (any NetworkIndicatorCancellable)?
        /// The interval of the running (or being started) sweep timer; `nil` when none.
        var sweepTimerInterval: TimeInterval?
        var outputs: [(output: any NetworkIndicatorOutput, receivesCount: Bool)] = []
        var countObservingOutputCount = 0
        var streams: [UInt64: AsyncStream<Bool>.Continuation] = [:]
        var unprimedStreamIDs: [UInt64] = []
        var nextStreamID: UInt64 = 0
        /// What the outputs and streams were last told.
        var deliveredVisibility = false
        var deliveredCount = 0
    }

    /// The main-queue work one event calls for, performed after the lock is released.
    struct MainQueuePlan {
        var cancelledTimers: [any NetworkIndicatorCancellable] = []
        var policyTimer: (delay: TimeInterval, generation: UInt64)?
        var sweepInterval: TimeInterval?
        var visibility: Bool?
        var count: Int?
        var outputs: [(output: any NetworkIndicatorOutput, receivesCount: Bool)] = []
        var updatedStreams: [AsyncStream<Bool>.Continuation] = []
        var primedStreams: [AsyncStream<Bool>.Continuation] = []
        var currentVisibility = false
    }

    var needsSweep: Bool {
        registry.sweptEntryCount > 0
            || (settings.staleTaskThreshold != nil && registry.activeTaskCount > 0)
    }

    /// Marks a reconcile hop pending and returns `true` if the caller must enqueue it.
    mutating func requestHop() -> Bool {
        guard !main.isHopPending else { return false }
        main.isHopPending = true
        return true
    }

    /// After the count changed from `oldCount`: does the main queue need to hear of it?
    /// An edge (none active ↔ some active) matters for visibility, unless a start or completion
    /// delay is running: the policy records it (reading the clock) and the delay's timer settles
    /// it. Every change matters when an output wants counts; the first swept token needs the
    /// sweep started.
    mutating func requestHop(afterCountChangeFrom oldCount: Int, now: () -> TimeInterval) -> Bool {
        let newCount = registry.activeTaskCount
        var isWanted =
            (main.countObservingOutputCount > 0 && oldCount != newCount)
            || (main.sweepTimerInterval == nil && needsSweep)
        if (oldCount == 0) != (newCount == 0), !main.policy.absorbEdge(isActive: newCount > 0, now: now()) {
            isWanted = true
        }
        return isWanted && requestHop()
    }

    /// Brings the policy, the timers and what the outputs were told up to date with the
    /// registry and settings, then applies `event` (a timer firing, say).
    mutating func makePlan(
        now: TimeInterval,
        then event: (inout VisibilityPolicy) -> VisibilityPolicy.Actions = { _ in .none }
    ) -> MainQueuePlan {
        var plan = MainQueuePlan()

        apply(
            main.policy.activityChanged(
                isActive: registry.activeTaskCount > 0,
                now: now,
                startDelay: settings.startDelay,
                completionDelay: settings.completionDelay
            ),
            to: &plan
        )
        apply(main.policy.enabledChanged(settings.isEnabled), to: &plan)
        apply(event(&main.policy), to: &plan)

        planSweep(&plan)

        if main.policy.isVisible != main.deliveredVisibility {
            main.deliveredVisibility = main.policy.isVisible
            plan.visibility = main.deliveredVisibility
            plan.updatedStreams = main.streams.filter { !main.unprimedStreamIDs.contains($0.key) }
                .map(\.value)
        }
        if registry.activeTaskCount != main.deliveredCount {
            main.deliveredCount = registry.activeTaskCount
            if main.countObservingOutputCount > 0 { plan.count = main.deliveredCount }
        }
        if plan.visibility != nil || plan.count != nil {
            plan.outputs = main.outputs
        }
        plan.primedStreams = main.unprimedStreamIDs.compactMap { main.streams[$0] }
        main.unprimedStreamIDs.removeAll()
        plan.currentVisibility = main.deliveredVisibility
        return plan
    }

    private mutating func apply(_ actions: VisibilityPolicy.Actions, to plan: inout MainQueuePlan) {
        guard let timer = actions.timer else { return }
        if let running = main.policyTimer {
            plan.cancelledTimers.append(running)
            main.policyTimer = nil
        }
        main.policyTimerGeneration &+= 1
        switch timer {
        case .start(let delay):
            plan.policyTimer = (delay, main.policyTimerGeneration)
        case .cancel:
            plan.policyTimer = nil
        }
    }

    private mutating func planSweep(_ plan: inout MainQueuePlan) {
        if needsSweep {
            guard main.sweepTimerInterval != settings.completionCheckInterval else { return }
            if let running = main.sweepTimer {
                plan.cancelledTimers.append(running)
                main.sweepTimer = nil
            }
            main.sweepTimerInterval = settings.completionCheckInterval
            plan.sweepInterval = settings.completionCheckInterval
        } else if main.sweepTimerInterval != nil {
            if let running = main.sweepTimer {
                plan.cancelledTimers.append(running)
            }
            main.sweepTimer = nil
            main.sweepTimerInterval = nil
        }
    }

    /// Hands over, for the manager's `deinit`, what must be cancelled, finished or told outside
    /// the lock. Nothing runs on the state afterwards: every scheduled closure holds the
    /// manager weakly.
    mutating func shutDown() -> (
        timers: [any NetworkIndicatorCancellable],
        streams: [AsyncStream<Bool>.Continuation],
        outputs: [any NetworkIndicatorOutput],
        wasVisible: Bool
    ) {
        defer {
            main.policyTimer = nil
            main.sweepTimer = nil
            main.streams.removeAll()
            main.outputs.removeAll()
        }
        return (
            [main.policyTimer, main.sweepTimer].compactMap { $0 },
            Array(main.streams.values),
            main.outputs.map(\.output),
            main.deliveredVisibility
        )
    }
}
