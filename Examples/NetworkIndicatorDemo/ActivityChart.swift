import Foundation
import NetworkIndicator

/// What really happened during the offline demo, recorded as it happens and drawn at the end as a
/// text Gantt chart: one row per task, from its begin call until the manager ended it, and one
/// row for the indicator, from the moments its output was told to show and to hide. Safe from
/// any thread.
final class ActivityLog: @unchecked Sendable {
    struct TaskRecord {
        let label: String
        /// When the begin call returned.
        let began: TimeInterval
        /// When its work started running (an operation may wait in its queue first).
        var workStarted: TimeInterval?
        /// When its work was done.
        var workDone: TimeInterval?
        /// When the manager no longer had it open (for an Operation token: at the next sweep).
        var ended: TimeInterval?
    }

    let timeline: Timeline
    private let lock = NSLock()
    // Guarded by `lock`.
    private var tasks: [TaskRecord] = []
    private var visibility: [(time: TimeInterval, isVisible: Bool)] = []
    private var counts: [(time: TimeInterval, count: Int)] = []

    init(timeline: Timeline) {
        self.timeline = timeline
    }

    private func withLock<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }

    /// Call right after the manager's begin call returns.
    func began(_ label: String, isWorking: Bool = true) {
        let now = timeline.elapsed
        withLock { tasks.append(TaskRecord(label: label, began: now, workStarted: isWorking ? now : nil)) }
    }

    func workStarted(_ label: String) {
        let now = timeline.elapsed
        withLock { if let index = tasks.firstIndex(where: { $0.label == label }) { tasks[index].workStarted = now } }
    }

    func workDone(_ label: String) {
        let now = timeline.elapsed
        withLock { if let index = tasks.firstIndex(where: { $0.label == label }) { tasks[index].workDone = now } }
    }

    /// Marks every recorded task that is still open but not in `openLabels` as ended now, and
    /// returns those tasks.
    func endTasks(notIn openLabels: Set<String>) -> [TaskRecord] {
        let now = timeline.elapsed
        return withLock {
            var ended: [TaskRecord] = []
            for index in tasks.indices where tasks[index].ended == nil && !openLabels.contains(tasks[index].label) {
                tasks[index].ended = now
                ended.append(tasks[index])
            }
            return ended
        }
    }

    func indicatorChanged(to isVisible: Bool) {
        let now = timeline.elapsed
        withLock { visibility.append((now, isVisible)) }
    }

    func countChanged(to count: Int) {
        let now = timeline.elapsed
        withLock { counts.append((now, count)) }
    }
}

/// The output that records the indicator for the chart, and the moment each task ends in the
/// manager: whenever the count changes, the tasks missing from the manager's
/// `activitySnapshot()` have ended.
@MainActor
final class ActivityRecorder: NetworkIndicatorOutput {
    private let log: ActivityLog
    /// Weak: the recorder must not keep the manager alive.
    private weak var manager: NetworkIndicatorManager?
    private var isVisible = false

    init(log: ActivityLog, manager: NetworkIndicatorManager) {
        self.log = log
        self.manager = manager
    }

    var receivesActiveTaskCount: Bool { true }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        log.indicatorChanged(to: isVisible)
        guard isVisible != self.isVisible else { return }
        self.isVisible = isVisible
        let count = manager?.activeTaskCount ?? 0
        log.timeline.log(isVisible ? "● indicator ON  (\(count) task(s))" : "○ indicator OFF")
    }

    func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        log.countChanged(to: activeTaskCount)
        let open = Set(manager?.activitySnapshot().activities.map(\.label) ?? [])
        for task in log.endTasks(notIn: open) {
            if let done = task.workDone, let ended = task.ended, ended - done > 0.02 {
                log.timeline.log("the sweep ends \(task.label) (its operation finished at \(seconds(done)))")
            }
        }
    }
}

extension ActivityLog {
    /// The chart, `step` seconds per column, sampled in the middle of each column.
    func chart(step: TimeInterval = 0.05, completionDelay: TimeInterval) -> String {
        let (tasks, visibility, counts) = withLock { (self.tasks, self.visibility, self.counts) }
        let lastEvent = ([visibility.last?.time, counts.last?.time] + tasks.map(\.ended)).compactMap { $0 }.max() ?? 0
        let columns = Int((lastEvent / step).rounded(.up)) + 1
        let times = (0..<columns).map { (Double($0) + 0.5) * step }
        let width = max(tasks.map(\.label.count).max() ?? 0, "indicator".count) + 2
        func row(_ label: String, _ glyph: (TimeInterval) -> Character) -> String {
            label.padding(toLength: width, withPad: " ", startingAt: 0) + String(times.map(glyph))
        }
        let perSecond = Int((1 / step).rounded())
        var scale = ""
        for second in stride(from: 0, to: columns, by: perSecond) {
            scale += "\(second / perSecond) s".padding(toLength: perSecond, withPad: " ", startingAt: 0)
        }
        let ruler = String((0..<columns).map { $0 % perSecond == 0 ? "|" : $0 % (perSecond / 2) == 0 ? ":" : "." })
        var lines = [
            String(repeating: " ", count: width) + scale,
            String(repeating: " ", count: width) + ruler,
        ]
        for task in tasks {
            lines.append(
                row(task.label) { time in
                    guard task.began <= time && time < (task.ended ?? .infinity) else { return " " }
                    let isWorking = (task.workStarted ?? .infinity) <= time && time < (task.workDone ?? .infinity)
                    return isWorking ? "█" : "░"
                }
            )
        }
        lines.append(
            row("indicator") { time in
                guard visibility.last(where: { $0.time <= time })?.isVisible == true else { return " " }
                return (counts.last { $0.time <= time }?.count ?? 0) > 0 ? "█" : "▒"
            }
        )
        lines += [
            "",
            "one column = \(Int(step * 1000)) ms",
            "tasks:     █ open, its work running   ░ open, its work not running (queued, or done and",
            "           waiting for the sweep to notice)",
            "indicator: █ shown, a task open       ▒ shown, no task open: the "
                + "\(seconds(completionDelay)) completion delay",
            "",
        ]
        lines += check(tasks: tasks, visibility: visibility, completionDelay: completionDelay)
        return lines.map { $0.replacingOccurrences(of: " +$", with: "", options: .regularExpression) }
            .joined(separator: "\n")
    }

    /// Compares the stretches in which any task was open with those in which the indicator was
    /// shown: the second should be the first, each extended by the completion delay.
    private func check(
        tasks: [TaskRecord],
        visibility: [(time: TimeInterval, isVisible: Bool)],
        completionDelay: TimeInterval
    ) -> [String] {
        var busy: [(start: TimeInterval, end: TimeInterval)] = []
        for task in tasks.sorted(by: { $0.began < $1.began }) {
            let end = task.ended ?? .infinity
            if let last = busy.last, task.began <= last.end {
                busy[busy.count - 1].end = max(last.end, end)
            } else {
                busy.append((task.began, end))
            }
        }
        var shown: [(start: TimeInterval, end: TimeInterval)] = []
        for event in visibility {
            if event.isVisible, shown.last?.end != .infinity {
                shown.append((event.time, .infinity))
            } else if !event.isVisible, shown.last?.end == .infinity {
                shown[shown.count - 1].end = event.time
            }
        }
        // Gaps shorter than the completion delay do not hide the indicator.
        var expected: [(start: TimeInterval, end: TimeInterval)] = []
        for stretch in busy {
            if let last = expected.last, stretch.start <= last.end {
                expected[expected.count - 1].end = stretch.end + completionDelay
            } else {
                expected.append((stretch.start, stretch.end + completionDelay))
            }
        }
        func list(_ stretches: [(start: TimeInterval, end: TimeInterval)]) -> String {
            stretches.map { String(format: "%.2f–%.2f s", $0.start, $0.end) }.joined(separator: ", ")
        }
        let tolerance = 0.05
        let matches =
            expected.count == shown.count
            && zip(expected, shown).allSatisfy {
                abs($0.start - $1.start) <= tolerance && abs($0.end - $1.end) <= tolerance
            }
        return [
            "a task open:     " + list(busy),
            "indicator shown: " + list(shown),
            matches
                ? "✓ the indicator was shown exactly while a task was open, plus the \(seconds(completionDelay)) "
                    + "completion delay"
                : "✗ the indicator does not match the tasks (tolerance \(seconds(tolerance)))",
        ]
    }
}

/// `0.2` → `"0.20 s"`.
func seconds(_ value: TimeInterval) -> String {
    String(format: "%.2f s", value)
}
