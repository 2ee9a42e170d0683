import NetworkIndicator

/// The classic counter: every push needs a pop; `resetNetworkActivity()` clears everything.
enum PushPopExample {
    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, manager) = (indicator.timeline, indicator.manager)
        manager.pushNetworkActivity()
        manager.pushNetworkActivity()
        await pause(0.3)
        manager.popNetworkActivity()
        timeline.log("one pop: still \(manager.activeTaskCount) task(s)")
        await pause(0.3)
        timeline.log("resetNetworkActivity()")
        manager.resetNetworkActivity()
        await indicator.waitUntilHidden()
    }
}
