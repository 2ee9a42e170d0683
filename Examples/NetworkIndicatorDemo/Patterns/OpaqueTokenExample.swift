import NetworkIndicator

/// Pattern 2: hold the opaque token while the work runs; dropping it ends the task at once.
enum OpaqueTokenExample {
    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, manager) = (indicator.timeline, indicator.manager)
        var token: NetworkActivityToken? = manager.beganNetworkTask(label: "profile")
        await pause(0.5)
        timeline.log("dropping the token")
        token = nil
        _ = token
        await indicator.waitUntilHidden()
    }
}
