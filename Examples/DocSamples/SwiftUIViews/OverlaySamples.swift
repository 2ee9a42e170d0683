import NetworkIndicator
import NetworkIndicatorUI
import Observation
import SwiftUI

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-overlay-manager
struct ItemsView: View {
    let items: [Item]
    let networkActivity: NetworkIndicatorManager  // the screen's scope, kept by its view model

    var body: some View {
        List(items) { ItemRow(item: $0) }
            .networkActivityOverlay(networkActivity)  // "Loading", localized; or label: "Loading items"
    }
}
// docs:end

@available(iOS 17, macOS 14, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-model
struct InboxView: View {
    // App-wide chrome: a small spinner while anything in the app loads.
    @State private var appActivity = NetworkIndicatorModel(manager: .shared)

    var body: some View {
        List { Text("…") }
            .toolbar {
                if appActivity.isVisible {
                    ProgressView()
                }
            }
    }
}
// docs:end

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-stream
struct StatusLine: View {
    @State private var isLoading = false

    var body: some View {
        Text(isLoading ? "Loading…" : "Up to date")
            .task {
                for await isVisible in NetworkIndicatorManager.shared.visibilityUpdates() {
                    isLoading = isVisible
                }
            }
    }
}
// docs:end

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-overlay-custom
struct MailboxView: View {
    let messages: [Item]

    var body: some View {
        List(messages) { ItemRow(item: $0) }
            .networkActivityOverlay(spokenTitle: String(localized: "Syncing mail")) {
                Label("Syncing mail", systemImage: "arrow.triangle.2.circlepath")
                    .padding()
                    .background(.thinMaterial, in: Capsule())
            }
            .networkActivityScope("Mailbox")  // the mailbox's loads, not the whole app's
    }
}
// docs:end

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-overlay-no-progress
struct GalleryView: View {
    let items: [Item]

    var body: some View {
        List(items) { ItemRow(item: $0) }
            // Dozens of thumbnails with sizes: a spinner says enough, no bar.
            .networkActivityOverlay(settings: NetworkActivityOverlaySettings(showsProgress: false))
            .networkActivityScope("Gallery")
    }
}
// docs:end
