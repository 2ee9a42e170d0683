import Foundation
import NetworkIndicator

/// "What keeps my spinner on?", live: an output that watches tasks prints each begin and end as
/// it happens, and the app's manager's snapshot is printed every second, with every scope's
/// tasks nested under it. One task is left open on purpose: the snapshot names it, and where
/// it began.
enum InspectExample {
    /// Prints each task event on the timeline: a terminal inspector in a dozen lines.
    @MainActor
    final class TaskPrinter: NetworkActivityTaskEventOutput {
        let timeline: Timeline
        init(timeline: Timeline) { self.timeline = timeline }
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
            timeline.log(isVisible ? "● indicator ON" : "○ indicator OFF")
        }
        func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) {
            for event in events { timeline.log(event.description) }
        }
    }

    private final class FeedLoader {}

    @MainActor
    static func run() async {
        let timeline = Timeline()
        let app = NetworkIndicatorManager()
        app.settings.completionCheckInterval = 0.25
        let printer = TaskPrinter(timeline: timeline)
        app.addOutput(printer)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")

        var sync: NetworkActivityToken? = app.beganNetworkTask()
        var loader: FeedLoader? = FeedLoader()
        feed.beganNetworkTask(withToken: loader!)
        let page = feed.beganNetworkTask(label: "feed page 2")  // never released here: the stuck one
        app.pushNetworkActivity()
        await timeline.sleep(until: 1)
        timeline.write("\n" + app.activitySnapshot().description + "\n")

        sync = nil
        loader = nil
        app.popNetworkActivity()
        await timeline.sleep(until: 2)
        timeline.write("\n" + app.activitySnapshot().description + "\n")

        app.resetNetworkActivity()  // ends the stuck one too, and says so
        await waitUntilIndicatorHidden(app)
        _ = (sync, loader, page)
    }
}
