import NetworkIndicator

/// What ``NetworkActivityInspector`` shows, in plain Swift so that it is tested on Linux: the
/// manager's open tasks (its snapshot, every scope nested under its label, ages counting up) and
/// the last tasks to end, newest first, each with its duration and how it ended.
///
/// It is the inspector's ``NetworkActivityTaskEventOutput``: attached to the manager while the
/// inspector is on screen (``attach()``, ``detach()``), it keeps the last ``endedLimit`` ends it
/// heard. Main actor only.
@MainActor
final class NetworkActivityInspectorModel: NetworkActivityTaskEventOutput {
    /// How many ended tasks are kept.
    static let endedLimit = 20

    let manager: NetworkIndicatorManager
    /// The last tasks to end, newest first.
    private(set) var ended: [NetworkActivityTaskEvent] = []

    init(manager: NetworkIndicatorManager) {
        self.manager = manager
    }

    /// Starts hearing the manager's tasks (and its scopes').
    func attach() {
        manager.addOutput(self)
    }

    /// Stops; the ended tasks heard so far stay.
    func detach() {
        manager.removeOutput(self)
    }

    /// The open tasks, one line each, a scope's indented under it, read now (call it on each
    /// tick: the ages count up); the first line is the count.
    func openLines() -> [String] {
        manager.activitySnapshot().description.split(separator: "\n").map(String.init)
    }

    /// The ended tasks, one line each, newest first.
    var endedLines: [String] {
        ended.map(\.description)
    }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) {
        let ends = events.filter {
            if case .ended = $0 { return true }
            return false
        }
        ended = Array((ends.reversed() + ended).prefix(Self.endedLimit))
    }
}
