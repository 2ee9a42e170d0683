import Foundation

/// Reading the state, the settings, the diagnostics handler, streams and output counts, from any
/// thread: each is one ``IndicatorDriver/withState(_:)``, which takes the lock in
/// `IndicatorDriver.swift`.
extension IndicatorDriver {
    // MARK: - Reading, from any thread

    /// The open tasks of the manager and its descendants.
    var activeTaskCount: Int {
        withState { $0.activeTaskCount }
    }

    /// Reads the registry under the lock.
    func withRegistry<Result>(_ body: (borrowing TaskRegistry) -> Result) -> Result {
        withState { body($0.registry) }
    }

    /// The manager's own entries as snapshot records (the live objects that name them are
    /// appended to `keptAlive`, to release after the lock), its children, and its count.
    func snapshotParts(
        keepingAlive keptAlive: inout [AnyObject]
    ) -> (records: [TaskRegistry.ActivityRecord], children: [IndicatorDriver], count: Int) {
        withState { state in
            (state.registry.records(keepingAlive: &keptAlive), Array(state.children.values), state.activeTaskCount)
        }
    }

    /// This manager's count and when it last left zero, for its parent's snapshot.
    var activity: (count: Int, since: TimeInterval) {
        withState { ($0.activeTaskCount, $0.activeSince) }
    }

    // MARK: - Settings and diagnostics, from any thread

    /// The settings now.
    var settings: IndicatorStateMachine.Settings {
        withState { $0.machine.settings }
    }

    /// Changes the settings under the lock; they apply at the next main-queue hop.
    func updateSettings(_ update: (inout IndicatorStateMachine.Settings) -> Void) {
        if withState({ $0.machine.settingsChanged(update) }) { enqueueReconcile() }
    }

    /// The handler that receives diagnostics.
    var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler {
        withState { $0.diagnosticsHandler }
    }

    /// Replaces the handler; the old one (and whatever it captured) is released after the lock.
    func replaceDiagnosticsHandler(with handler: @escaping NetworkIndicatorDiagnosticsHandler) {
        let old = withState { state in
            defer { state.diagnosticsHandler = handler }
            return state.diagnosticsHandler
        }
        _ = old
    }

    /// Passes a diagnostic to the handler, outside the lock.
    func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        diagnosticsHandler(NetworkIndicatorDiagnostic(kind: kind, label: label))
    }

    // MARK: - Streams and outputs

    /// Registers a stream's continuation (primed at the next hop); returns its id.
    func addStream(_ continuation: StreamRegistry.Continuation) -> UInt64 {
        let (id, hop) = withState { ($0.streams.add(continuation), $0.machine.streamOpened()) }
        if hop { enqueueReconcile() }
        return id
    }

    /// Forgets the stream `id` (its consumer went away).
    func removeStream(_ id: UInt64) {
        withState { $0.streams.remove(id) }
    }

    /// Tells the machine that an output was attached; returns the count to tell it at once, if
    /// it wants counts.
    func outputAttached(receivesCount: Bool) -> Int? {
        let (count, hop) = withState {
            $0.machine.outputAttached(receivesCount: receivesCount, activity: $0.activity)
        }
        if hop { enqueueReconcile() }
        return count
    }

    /// `count` outputs that wanted counts were detached or found deallocated.
    func countObserversLeft(_ count: Int) {
        guard count > 0 else { return }
        withState { $0.machine.countObserversLeft(count) }
    }
}
