import NetworkIndicator

/// Scoped activity: active exactly while the async body runs, whatever way it ends.
enum ScopedExample {
    struct Offline: Error {}

    @MainActor
    static func run() async {
        let indicator = TimelineIndicator()  // keeps its output alive: the manager holds it weakly
        let (timeline, manager) = (indicator.timeline, indicator.manager)
        let feed = await manager.withNetworkActivity(label: "feed") {
            await pause(0.4)
            return ["post 1", "post 2"]
        }
        timeline.log("loaded \(feed.count) posts")
        do {
            try await manager.withNetworkActivity(label: "sync") {
                await pause(0.4)
                throw Offline()
            }
        } catch {
            timeline.log("sync threw \(error); the activity ended anyway")
        }
        await indicator.waitUntilHidden()
    }
}
