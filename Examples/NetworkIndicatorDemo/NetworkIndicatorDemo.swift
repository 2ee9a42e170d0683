import Foundation
import NetworkIndicator

/// `swift run NetworkIndicatorDemo` runs the offline demo; see ``usage`` for the rest.
@main
enum NetworkIndicatorDemo {
    static let usage = """
        usage: NetworkIndicatorDemo                      offline demo: simulated downloads, three patterns
               NetworkIndicatorDemo URL [URL…]           fetch the URLs with a terminal spinner
               NetworkIndicatorDemo PATTERN              one small example per pattern:
                 token       an Operation as the token, held weakly
                 opaque      an opaque token, held then dropped
                 explicit    begin and an explicit finish
                 push-pop    the classic counter
                 group       per-client groups that cancel their own work
                 scoped      withNetworkActivity { … } around async work
                 scopes      the app's indicator and two screens' (child managers) on one timeline
                 screen      a slow load turning into "Still loading…", a screen's loads cancelled
                 progress    a download's growing bar in a scope, rolled up into the app's
                 inspect     every task's begin and end as it happens, and what is still open
                 urlsession  URLSession loads tracked for their whole life (needs network;
                             same as passing URLs, default https://www.swift.org)
        """

    @MainActor
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case nil: await runOfflineDemo()
        case "token": await TokenExample.run()
        case "opaque": await OpaqueTokenExample.run()
        case "explicit": await ExplicitFinishExample.run()
        case "push-pop": await PushPopExample.run()
        case "group": await GroupExample.run()
        case "scoped": await ScopedExample.run()
        case "scopes": await ScopesExample.run()
        case "screen": await ScreenExample.run()
        case "progress": await ProgressExample.run()
        case "inspect": await InspectExample.run()
        case "urlsession": await URLSessionExample.run(urls: Array(arguments.dropFirst()))
        case let url? where url.hasPrefix("http://") || url.hasPrefix("https://"):
            await URLSessionExample.run(urls: arguments)
        default:
            print(usage)
            exit(arguments.first == "--help" || arguments.first == "-h" ? 0 : 64)
        }
    }
}

/// A manager whose indicator prints to a timeline: the shared setup of the pattern examples.
///
/// The visibility closure lasts as long as this object. Hold it until the example ends: each example
/// ends with ``waitUntilHidden(timeout:)``, which does.
@MainActor
final class TimelineIndicator {
    let timeline: Timeline
    let manager: NetworkIndicatorManager

    init() {
        let timeline = Timeline()
        let manager = NetworkIndicatorManager()
        manager.settings.completionCheckInterval = 0.25
        self.timeline = timeline
        self.manager = manager
        // Bound to this object: the calls last as long as it does, and nothing is stored.
        manager.observeVisibility(owner: self) { indicator, isVisible in
            let count = indicator.manager.activeTaskCount
            indicator.timeline.log(isVisible ? "● indicator ON  (\(count) task(s))" : "○ indicator OFF")
        }
    }

    /// Waits until the indicator has turned off (or `timeout` passes).
    func waitUntilHidden(timeout: TimeInterval = 3) async {
        await waitUntilIndicatorHidden(manager, timeout: timeout)
    }
}

/// Waits until `manager` has no task and its indicator has turned off; `false` if `timeout`
/// passed first.
@MainActor
@discardableResult
func waitUntilIndicatorHidden(_ manager: NetworkIndicatorManager, timeout: TimeInterval = 3) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            try? await manager.waitUntilIdle()
            // The current visibility first, then each change: the completion delay's end.
            for await isVisible in manager.visibilityUpdates() where !isVisible { return true }
            return false
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
            return false
        }
        let hidden = await group.next() ?? false
        group.cancelAll()
        return hidden
    }
}

/// Sleeps without blocking a thread.
func pause(_ seconds: Double) async {
    try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
}
