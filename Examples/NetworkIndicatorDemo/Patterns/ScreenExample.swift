import Foundation
import NetworkIndicator

/// A screen in charge of its work: a slow load turns into "Still loading…", and the screen's
/// loads are cancelled when it goes away. Offline: the loads are timed tasks.
enum ScreenExample {
    /// A simulated download: a task that the manager's cancel reaches.
    final class SimulatedLoad: NetworkActivityCancellable, Sendable {
        let task: Task<Bool, Never>

        init(seconds: Double) {
            task = Task {
                await pause(seconds)
                return !Task.isCancelled
            }
        }

        func cancel() { task.cancel() }
    }

    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // the app's indicator, on the timeline
        let (timeline, app) = (indicator.timeline, indicator.manager)
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        feed.observeSlowNetworkActivity(after: 0.6, owner: indicator) { _, isSlow in
            timeline.log(isSlow ? "… Feed: Still loading…" : "  Feed: not slow")
        }

        timeline.log("Feed loads for 1.2 s (reported slow after 0.6 s)")
        let slow = SimulatedLoad(seconds: 1.2)
        feed.beganNetworkTask(withToken: slow, label: "posts")
        _ = await slow.task.value
        feed.finishedNetworkTask(forToken: slow)
        await indicator.waitUntilHidden()

        timeline.log("Feed starts two 3 s loads; the app starts one of its own")
        let loads = [SimulatedLoad(seconds: 3), SimulatedLoad(seconds: 3)]
        for load in loads { feed.beganNetworkTask(withToken: load, label: "images") }
        var appOwn: NetworkActivityToken? = app.beganNetworkTask(label: "sync")
        await pause(0.8)
        feed.cancelNetworkTasks()  // the screen went away
        timeline.log("Feed cancelled: Feed has \(feed.activeTaskCount) task(s), the app \(app.activeTaskCount)")
        for load in loads {
            let completed = await load.task.value
            timeline.log("  a Feed load \(completed ? "completed" : "was cancelled")")
        }
        await pause(0.3)
        timeline.log("the app's own load ends")
        appOwn = nil
        _ = appOwn
        await indicator.waitUntilHidden()
    }
}
