import NetworkIndicator

/// One running pull-to-refresh: a task of the manager that a scope's overlay leaves out, for
/// `networkActivityRefreshable`. Plain Swift, so that the order of its steps is tested on Linux.
///
/// The overlay reads the manager's exact count whenever the refresh count changes, and draws
/// for the difference. So the task begins before the refresh is counted and ends before the
/// refresh is uncounted: in the other order the overlay sees, for a moment, one task too few
/// (and erases while another load runs) or one too many (and waits to draw for the refresh).
/// Main actor only.
@MainActor
final class RefreshActivity {
    private var task: ScopedActivity?
    private let refreshes: ScopeOverlayExclusions?

    private init(task: ScopedActivity, refreshes: ScopeOverlayExclusions?) {
        self.task = task
        self.refreshes = refreshes
    }

    /// Begins a task labelled `label` (or named by `file` and `line`, where the view's code
    /// asked for the refresh) in `manager`, then counts it in `refreshes` (if any).
    static func begin(
        in manager: NetworkIndicatorManager,
        label: String?,
        refreshes: ScopeOverlayExclusions?,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> RefreshActivity {
        // A scoped body's task: its stale report says it is one, and a cancel leaves it counted.
        let task = ScopedActivity(in: manager, label: label, file: file, line: line)
        let activity = RefreshActivity(task: task, refreshes: refreshes)
        refreshes?.begin()
        return activity
    }

    /// Ends the task, then uncounts the refresh. Ending again does nothing.
    func end() {
        guard let task else { return }
        // Silent even if a `resetNetworkActivity()` ended it already.
        task.end()
        self.task = nil
        refreshes?.end()
    }

    /// Runs `action` as one refresh: begun before it, ended when it returns or, a main-actor hop
    /// after it, when the surrounding task is cancelled (even if `action` keeps running).
    static func run(
        in manager: NetworkIndicatorManager,
        label: String?,
        refreshes: ScopeOverlayExclusions?,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ action: @MainActor () async -> Void
    ) async {
        let activity = begin(in: manager, label: label, refreshes: refreshes, file: file, line: line)
        await withTaskCancellationHandler {
            await action()
        } onCancel: {
            Task { @MainActor in activity.end() }
        }
        activity.end()
    }
}
