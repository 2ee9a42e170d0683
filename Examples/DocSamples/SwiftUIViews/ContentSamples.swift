import NetworkIndicator
import NetworkIndicatorUI
import Observation
import SwiftUI

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-has-content
struct PostsList: View {
    @State private var posts: [Post] = []

    var body: some View {
        List(posts) { PostRow(post: $0) }
            .networkActivityTask(label: "posts") { posts = (try? await api.loadPosts()) ?? posts }
            // Rows on screen: a small capsule at the top edge while they reload; none yet: the card.
            .networkActivityOverlay(hasContent: !posts.isEmpty, settings: Self.overlaySettings)
            .networkActivityScope("Posts")
    }

    /// The defaults, and "Still loading…" as the title once a load has taken 8 s.
    private static let overlaySettings: NetworkActivityOverlaySettings = {
        var settings = NetworkActivityOverlaySettings()
        settings.stillLoadingAfter = 8
        return settings
    }()
}
// docs:end

@available(iOS 16, macOS 13, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-overlay-title-key
struct FeedList: View {
    let posts: [Post]
    let feed: NetworkIndicatorManager  // the screen's scope, kept by its view model

    var body: some View {
        List(posts) { PostRow(post: $0) }
            // A LocalizedStringResource: extracted into your String Catalog, iOS 16 on.
            .networkActivityOverlay(feed, hasContent: !posts.isEmpty, title: "Loading feed")
    }
}
// docs:end

@available(iOS 17, macOS 14, *)
// docs:begin swiftui-model-has-content
@MainActor  // its views read it on the main actor; @Observable does not make it so
@Observable
final class InboxViewModel {
    // The screen's own scope (its loads count in `.shared` too), and a model of it for the
    // screen's own views (a badge, a title).
    let networkActivity = NetworkIndicatorManager(parent: .shared, label: "Inbox")
    let activity: NetworkIndicatorModel
    var posts: [Post] = []

    init() { activity = NetworkIndicatorModel(manager: networkActivity) }
}

@available(iOS 17, macOS 14, *)  // NetworkIndicatorModel is @Observable
@MainActor
struct InboxList: View {
    @State private var viewModel = InboxViewModel()

    var body: some View {
        List(viewModel.posts) { PostRow(post: $0) }
            // Rows on screen: the light indicator while they reload; none yet: the card.
            .networkActivityOverlay(viewModel.networkActivity, hasContent: !viewModel.posts.isEmpty)
            .navigationTitle(viewModel.activity.isVisible ? "Updating…" : "Inbox")
    }
}
// docs:end

/// Every SwiftUI overlay form takes `hasContent:` and each kind of title; compiled, not quoted.
@available(iOS 16, macOS 13, *)
@MainActor
struct OverlayFormsCheck: View {
    let feed: NetworkIndicatorManager
    let hasContent: Bool

    var body: some View {
        VStack {
            managerAndEnvironmentForms
            customContentForms
        }
    }

    private var customContentForms: some View {
        Group {
            Text("p").networkActivityOverlay(spokenTitle: "Syncing") { Text("Syncing") }
            Text("q").networkActivityOverlay(feed, spokenTitle: "Syncing") { Text("Syncing") }
            Text("r").networkActivityOverlay(hasContent: hasContent, spokenTitle: "Syncing") { Text("Syncing") }
            Text("s").networkActivityOverlay(feed, hasContent: hasContent) { Text("Syncing") }
            Text("t").networkActivityOverlay { Text("Syncing") }
        }
    }

    private var managerAndEnvironmentForms: some View {
        Group {
            Text("a").networkActivityOverlay(feed, hasContent: hasContent, label: "Loading feed")
            Text("b").networkActivityOverlay(feed, hasContent: hasContent, title: "Loading feed")
            Text("c").networkActivityOverlay(feed, label: "Loading feed", bundle: .main)
            Text("d").networkActivityOverlay(hasContent: hasContent, title: "Loading feed")
            Text("e").networkActivityOverlay(label: "Loading feed", settings: .init(showDelay: 0.3))
            Text("l").networkActivityOverlay(feed, title: "Loading feed")
            Text("m").networkActivityOverlay(title: "Loading feed")
            Text("n").networkActivityOverlay(hasContent: hasContent)
            Text("o").networkActivityOverlay(feed)
            Text("k").networkActivityOverlay()
        }
    }
}
