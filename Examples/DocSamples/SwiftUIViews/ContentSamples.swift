import NetworkIndicator
import NetworkIndicatorUI
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
