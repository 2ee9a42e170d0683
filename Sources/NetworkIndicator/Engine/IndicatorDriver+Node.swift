import Foundation

/// The driver's reads of its manager's node, and its changes that move no count; each takes the
/// lock once, through `read(ifGone:_:)`, `update(ifGone:_:)` or `machineEvent(_:)`.
extension IndicatorDriver {
    /// The open tasks of the manager and its descendants.
    var activeTaskCount: Int {
        read(ifGone: 0) { $0.activeTaskCount }
    }

    /// The open tasks under `key` here (none once gone); for the progress roll-up, never on begin or finish.
    func openTaskCount(_ key: ObjectIdentifier) -> Int {
        read(ifGone: 0) { $0.registry.openTaskCount(key) }
    }

    /// ``openTaskCount(_:)`` for the opaque token pinned at `slot` in `generation`.
    func openTaskCount(pinnedAt slot: Int32, generation: UInt32) -> Int {
        read(ifGone: 0) { $0.registry.openTaskCount(pinnedAt: slot, generation: generation) }
    }

    /// The open tasks of the manager and its descendants, and how often that count left zero: a new
    /// busy period tells the progress roll-up the scope was idle in between, even if nobody read it.
    var progressActivity: ProgressActivity {
        read(ifGone: ProgressActivity(count: 0, busyPeriod: 0)) {
            ProgressActivity(count: $0.activeTaskCount, busyPeriod: $0.busyPeriod)
        }
    }

    /// The label the caller's token `key` was begun with, if its tasks ended lately and it is
    /// still alive (see ``EndedLabels``): for the report of a finish that found no task.
    func labelOfEndedToken(_ key: ObjectIdentifier) -> String? {
        update(ifGone: nil) { $0.registry.endedLabels.label(of: key) }
    }

    /// The label the opaque token pinned at `pinned` was begun with, if its tasks were finished
    /// lately: for the report of a finish that found no task.
    func labelOfEndedToken(pinnedAt pinned: PinnedSlot) -> String? {
        read(ifGone: nil) { $0.registry.endedLabels.label(ofPinned: pinned) }
    }

    /// The open operations of the group keyed `key`.
    func groupCount(for key: ObjectIdentifier) -> Int {
        read(ifGone: 0) { $0.registry.groupCount(for: key) }
    }

    var settings: IndicatorStateMachine.Settings {
        read(ifGone: IndicatorStateMachine.Settings()) { $0.machine.settings }
    }

    /// Changes the settings under the lock; they apply at the next main-queue hop.
    func updateSettings(_ update: @escaping @Sendable (inout IndicatorStateMachine.Settings) -> Void) {
        machineEvent { ((), $0.changeSettings(of: $1, update)) }
    }

    var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler {
        read(ifGone: IndicatorTree.silent) { $0.diagnosticsHandler }
    }

    /// Replaces the handler; the old one (and whatever it captured) is released after the lock.
    func replaceDiagnosticsHandler(with handler: @escaping NetworkIndicatorDiagnosticsHandler) {
        let old = update(ifGone: handler) { node in
            defer { node.diagnosticsHandler = handler }
            return node.diagnosticsHandler
        }
        _ = old
    }

    // MARK: - Streams and outputs

    /// Tells the machine an output was attached; returns the count to tell it at once, if it wants counts.
    func outputAttached(receivesCount: Bool) -> Int? {
        machineEvent { $0.outputAttached(receivesCount: receivesCount, in: $1) }
    }

    /// `count` outputs that wanted counts were detached or found deallocated.
    func countObserversLeft(_ count: Int) {
        guard count > 0 else { return }
        update(ifGone: ()) { $0.machine.countObserversLeft(count) }
    }
}

/// A manager's count and its current busy period, as the progress roll-up sees them.
struct ProgressActivity: Equatable {
    let count: Int
    let busyPeriod: UInt64
}
