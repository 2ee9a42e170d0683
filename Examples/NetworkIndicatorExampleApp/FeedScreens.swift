import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

/// The feed: its own scope ("Feed"), its load counted there while it runs, its own "Loading".
@MainActor
struct FeedView: View {
    @State private var posts: [SimulatedAPI.Post] = []
    @State private var page = 1
    /// The page shown, so that coming back (from a post, another tab) does not load it again
    /// and cover its rows with "Loading".
    @State private var loadedPage: Int?

    var body: some View {
        List(posts) { post in
            NavigationLink(post.title, value: post)
        }
        .navigationTitle("Feed")
        .navigationDestination(for: SimulatedAPI.Post.self) { PostDetailView(post: $0) }
        .toolbar {
            Button("Next page") { page += 1 }
        }
        .networkActivityTask(id: page, label: "posts page") {
            if loadedPage != page { await loadPosts() }
        }
        .networkActivityRefreshable(label: "refresh posts") { await loadPosts() }
        // Rows already loaded (coming back to the feed, the next page): a light indicator at
        // the top that covers none of them; no rows yet: the card.
        .networkActivityOverlay(hasContent: !posts.isEmpty)
        .networkActivityScope("Feed")
    }

    /// A load cancelled (the page changed, a post was opened) or failed keeps the list.
    private func loadPosts() async {
        if let loaded = try? await SimulatedAPI.posts(page: page) {
            posts = loaded
            loadedPage = page
        }
    }
}

/// A post's comments: a scope of its own ("Post N") inside the feed's, so its loads show here,
/// in the feed's count and in the app-wide indicator.
///
/// Its work is written in modifiers above `networkActivityScope`, which read the scope for
/// the view: the view that declares a scope sees its parent's manager in its own environment.
@MainActor
struct PostDetailView: View {
    let post: SimulatedAPI.Post
    @State private var comments: [String] = []

    var body: some View {
        List(comments, id: \.self) { Text($0) }
            .navigationTitle(post.title)
            .networkActivityTask(id: post.id, label: "comments") { await loadComments() }
            // Pull to refresh: counted in the post's scope (and the feed's, and the app's); the
            // post's overlay leaves it to the system's refresh control.
            .networkActivityRefreshable(label: "refresh comments") { await loadComments() }
            .networkActivityOverlay(hasContent: !comments.isEmpty, label: "Loading comments")
            .networkActivityScope("Post \(post.id)")
    }

    /// A load cancelled (the view went away) or failed keeps the comments shown.
    private func loadComments() async {
        if let loaded = try? await SimulatedAPI.comments(for: post) { comments = loaded }
    }
}
