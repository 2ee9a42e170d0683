import NetworkIndicator

/// Per-client groups: each screen counts its own work and can cancel it without touching the
/// others'.
enum GroupExample {
    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, manager) = (indicator.timeline, indicator.manager)
        let feed = NetworkActivityGroup(manager: manager, label: "feed")
        let images = NetworkActivityGroup(manager: manager, label: "images")
        feed.operationStarted()
        images.operationStarted()
        images.operationStarted()
        await pause(0.3)
        timeline.log("the image screen closes: images.cancelOperations()")
        images.cancelOperations()
        timeline.log("still \(manager.activeTaskCount) task(s): the feed's")
        await pause(0.3)
        feed.operationFinished()
        await indicator.waitUntilHidden()
    }
}
