import NetworkIndicator

/// Pattern 3: begin with any object and finish it explicitly when you know you are done.
enum ExplicitFinishExample {
    final class Request: Sendable {}

    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, manager) = (indicator.timeline, indicator.manager)
        let request = Request()
        manager.beganNetworkTask(withToken: request, label: "upload")
        await pause(0.5)
        timeline.log("finishedNetworkTask(forToken:)")
        manager.finishedNetworkTask(forToken: request)
        timeline.log("a second finish is ignored and reported:")
        manager.finishedNetworkTask(forToken: request)
        await indicator.waitUntilHidden()
    }
}
