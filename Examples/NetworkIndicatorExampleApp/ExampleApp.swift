import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

/// The example app: three tabs, each screen with a loading state of its own, and the app-wide
/// indicator on `NetworkIndicatorManager.shared`, which shows while any screen loads.
@main
@MainActor  // Xcode 16 infers it for an App; the Swift 5.9 SDKs of the type check do not
struct NetworkIndicatorExampleApp: App {
    /// The app-wide indicator: kept for the app's life (a manager holds its outputs weakly).
    @State private var appActivity = NetworkIndicatorModel(manager: .shared)

    init() {
        // On the iPhones and iPads that still show it, the status-bar spinner too.
        NetworkIndicatorManager.shared.addOutput(StatusBarNetworkIndicatorOutput.shared)
    }

    var body: some Scene {
        WindowGroup {
            TabView {
                NavigationStack { FeedView() }
                    .tabItem { Label("Feed", systemImage: "list.bullet") }
                NavigationStack { LiveEventsView() }
                    .tabItem { Label("Live", systemImage: "dot.radiowaves.left.and.right") }
                NavigationStack { DownloadsScreen() }
                    .tabItem { Label("Downloads", systemImage: "arrow.down.circle") }
            }
            // At the top centre, clear of the toolbar's buttons, and never taking their taps.
            .overlay(alignment: .top) {
                AppActivityBadge(activity: appActivity)
                    .allowsHitTesting(false)
            }
        }
    }
}

/// A small spinner and the number of tasks open anywhere in the app.
@MainActor
struct AppActivityBadge: View {
    let activity: NetworkIndicatorModel

    var body: some View {
        if activity.isVisible {
            HStack(spacing: 6) {
                ProgressView()
                Text("\(activity.activeTaskCount)").monospacedDigit()
            }
            .padding(8)
            .background(.thinMaterial, in: Capsule())
            .accessibilityElement(children: .combine)
            // "1 task", "2 tasks": Foundation's automatic grammar agreement (iOS 15+).
            .accessibilityLabel(Text("Network activity: ^[\(activity.activeTaskCount) task](inflect: true)"))
        }
    }
}
