import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

/// The feed: its own scope ("Feed"), its load counted there while it runs, its own "Loading".
@MainActor
struct FeedView: View {
    @State private var posts: [SimulatedAPI.Post] = []
    @State private var page = 1

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
            // A load cancelled (the page changed, a post was opened) or failed keeps the list.
            if let loaded = try? await SimulatedAPI.posts(page: page) { posts = loaded }
        }
        .networkActivityOverlay()
        .networkActivityScope("Feed")
    }
}

/// A post's comments: a scope of its own ("Post N") inside the feed's, so its loads show here,
/// in the feed's count and in the app-wide indicator.
///
/// The view that declares a scope is outside it (its own environment holds the feed's manager),
/// so the work goes to `PostComments`, a view inside the scope.
@MainActor
struct PostDetailView: View {
    let post: SimulatedAPI.Post

    var body: some View {
        PostComments(post: post)
            .navigationTitle(post.title)
            .networkActivityOverlay(label: "Loading comments")
            .networkActivityScope("Post \(post.id)")
    }
}

/// Inside the post's scope: its environment's manager is the "Post N" child, so the refresh
/// counts there (and in the feed and the app), and the post's overlay shows it.
@MainActor
private struct PostComments: View {
    let post: SimulatedAPI.Post
    @State private var comments: [String] = []
    @Environment(\.networkIndicator) private var networkIndicator

    var body: some View {
        List(comments, id: \.self) { Text($0) }
            .refreshable {
                // Any pattern works on the scope's manager, here the scoped async one.
                await networkIndicator.withNetworkActivity(label: "refresh comments") {
                    if let loaded = try? await SimulatedAPI.comments(for: post) { comments = loaded }
                }
            }
            .networkActivityTask(id: post.id, label: "comments") {
                if let loaded = try? await SimulatedAPI.comments(for: post) { comments = loaded }
            }
    }
}
