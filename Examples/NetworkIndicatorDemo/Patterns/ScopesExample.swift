import NetworkIndicator

/// Scopes: two screens, each with a child manager of `NetworkIndicatorManager.shared` and an
/// indicator of its own, load at overlapping times. Each screen's indicator shows while *its*
/// work runs; the app's shows while *any* screen's does. Each manager applies its own delays.
enum ScopesExample {
    @MainActor
    static func run() async {
        let app = NetworkIndicatorManager.shared
        let feed = NetworkIndicatorManager(parent: app, label: "Feed")
        let profile = NetworkIndicatorManager(parent: app, label: "Profile")
        app.settings.completionDelay = 0.2
        feed.settings.completionDelay = 0.1
        profile.settings.completionDelay = 0.1
        let board = IndicatorBoard([("app", app), ("Feed", feed), ("Profile", profile)])
        let timeline = board.timeline
        timeline.write("● shown  ○ hidden  (n) open tasks: the app's count is its screens' tasks")
        timeline.write("completionDelay: app 0.2 s, Feed and Profile 0.1 s\n")

        async let feedScreen: Void = loadFeed(feed, timeline)
        async let profileScreen: Void = loadProfile(profile, timeline)
        _ = await (feedScreen, profileScreen)

        for manager in [feed, profile, app] {
            await waitUntilIndicatorHidden(manager)
        }
        board.finish()
    }

    /// The feed screen: two pages, with `withNetworkActivity` on its own manager.
    @MainActor
    static func loadFeed(_ feed: NetworkIndicatorManager, _ timeline: Timeline) async {
        for (page, start, end) in [("page 1", 0.0, 1.2), ("page 2", 1.5, 2.0)] {
            await timeline.sleep(until: start)
            await feed.withNetworkActivity(label: page) {
                timeline.log("Feed     begins \(page)")
                await timeline.sleep(until: end)
            }
            timeline.log("Feed     ends \(page)")
        }
    }

    /// The profile screen: an opaque token, held while its request runs.
    @MainActor
    static func loadProfile(_ profile: NetworkIndicatorManager, _ timeline: Timeline) async {
        await timeline.sleep(until: 0.8)
        var token: NetworkActivityToken? = profile.beganNetworkTask(label: "profile.json")
        timeline.log("Profile  begins profile.json")
        await timeline.sleep(until: 2.6)
        token = nil  // releasing the token ends the task in Profile and in the app at once
        _ = token
        timeline.log("Profile  ends profile.json")
    }
}

/// Prints a line whenever one of several managers' indicators changes, with all of their
/// states: which indicator changed, then each one's visibility and open task count.
@MainActor
final class IndicatorBoard {
    let timeline = Timeline()
    private let names: [String]
    private let managers: [NetworkIndicatorManager]
    private var isVisible: [Bool]

    init(_ indicators: [(name: String, manager: NetworkIndicatorManager)]) {
        names = indicators.map(\.name)
        managers = indicators.map(\.manager)
        isVisible = Array(repeating: false, count: indicators.count)
        for (index, manager) in managers.enumerated() {
            // Bound to the board: the calls last as long as it does, and nothing is stored.
            manager.observeVisibility(owner: self) { board, isVisible in
                board.indicator(at: index, changedTo: isVisible)  // told the current state at once
            }
        }
    }

    private func indicator(at index: Int, changedTo visible: Bool) {
        guard isVisible[index] != visible else { return }
        isVisible[index] = visible
        let change = "\(names[index]) \(visible ? "ON" : "off")"
        timeline.log(change.padding(toLength: 12, withPad: " ", startingAt: 0) + "│ " + states)
    }

    /// Every indicator's visibility and count, in one column each.
    private var states: String {
        names.indices.map { index in
            "\(names[index]) \(isVisible[index] ? "●" : "○") (\(managers[index].activeTaskCount))"
        }
        .joined(separator: "   ")
    }

    /// Prints the final states.
    func finish() {
        timeline.log("all done    │ " + states)
    }
}
