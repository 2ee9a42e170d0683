import Foundation
import NetworkIndicator

/// Determinate progress: a download in a "Downloads" scope and a sync in the app, each with a
/// `Progress`; the app's bar rolls up both (by bytes), the scope's shows its own.
enum ProgressExample {
    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, app) = (indicator.timeline, indicator.manager)
        let downloads = NetworkIndicatorManager(parent: app, label: "Downloads")
        // An output that asks for the fraction: told at most ten times a second. The manager
        // holds it weakly, so it is kept here until the end.
        let bars = ProgressBars(timeline: timeline, downloads: downloads)
        app.addOutput(bars)
        defer { withExtendedLifetime(bars) {} }
        async let video: Void = transfer("video.mp4", bytes: 6_000_000, seconds: 1.2, in: downloads, timeline)
        async let sync: Void = transfer("sync", bytes: 2_000_000, seconds: 0.6, in: app, timeline)
        _ = await (video, sync)
        await indicator.waitUntilHidden()
    }

    /// Logs the app's fraction beside the downloads scope's at each change of the app's.
    @MainActor
    private final class ProgressBars: NetworkIndicatorOutput {
        let timeline: Timeline
        let downloads: NetworkIndicatorManager

        init(timeline: Timeline, downloads: NetworkIndicatorManager) {
            self.timeline = timeline
            self.downloads = downloads
        }

        var receivesFractionCompleted: Bool { true }

        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

        func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) {
            timeline.log("app \(bar(fraction))   downloads \(bar(downloads.progressSnapshot().fractionCompleted))")
        }
    }

    /// Simulates a transfer of `bytes` in `seconds`, reporting through a `Progress`.
    @MainActor
    private static func transfer(
        _ name: String,
        bytes: Int64,
        seconds: Double,
        in manager: NetworkIndicatorManager,
        _ timeline: Timeline
    ) async {
        let progress = Progress(totalUnitCount: bytes)
        let token = manager.beganNetworkTask(label: name, progress: progress)
        timeline.log("start \(name) (\(bytes / 1_000_000) MB)")
        let steps = 20
        for _ in 0..<steps {
            await pause(seconds / Double(steps))
            progress.completedUnitCount += bytes / Int64(steps)  // on the main queue, at any rate
        }
        timeline.log("done  \(name)")
        withExtendedLifetime(token) {}  // the task ends when the token goes
    }

    /// `[██████░░░░░░░░░░░░░░]  30%`, or a note that no fraction is known.
    private static func bar(_ fraction: Double?) -> String {
        guard let fraction else { return "[ no progress known ]" }
        let filled = Int((fraction * 20).rounded(.down))
        let percent = Int((fraction * 100).rounded(.down))
        let text = String(repeating: "█", count: filled) + String(repeating: "░", count: 20 - filled)
        return "[\(text)] " + String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
    }
}
