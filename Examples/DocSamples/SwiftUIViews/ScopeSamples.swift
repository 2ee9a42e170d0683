import NetworkIndicator
import NetworkIndicatorUI
import Observation
import SwiftUI

@MainActor
@available(iOS 17, macOS 14, *)
@Observable
final class FeedModel {
    private(set) var posts: [Post] = []

    func load() async {
        posts = (try? await api.loadPosts()) ?? []
    }
}

@available(iOS 17, macOS 14, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-scope
struct FeedView: View {
    @State private var model = FeedModel()

    var body: some View {
        List(model.posts) { PostRow(post: $0) }
            .networkActivityTask(label: "posts") { await model.load() }  // like .task; counts in "Feed"
            .networkActivityRefreshable(label: "refresh") { await model.load() }  // like .refreshable
            // "Feed"'s "Loading": the card while the list is empty, then a light top-edge indicator
            .networkActivityOverlay(hasContent: !model.posts.isEmpty)
            .networkActivityScope("Feed")  // the child that the lines above and the List see
    }
}
// docs:end

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-detail
struct PostDetailView: View {
    let post: Post
    @State private var comments: [String] = []

    var body: some View {
        List(comments, id: \.self) { Text($0) }
            .networkActivityTask(id: post.id, label: "comments") {
                comments = await loadComments(for: post)  // runs on the main actor, like .task
            }
            .networkActivityOverlay(hasContent: !comments.isEmpty, label: "Loading comments")
            .networkActivityScope("Post \(post.id)")
    }
}
// docs:end

@MainActor
func loadComments(for post: Post) async -> [String] {
    ["First!", "Nice post, \(post.title)"]
}

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-scope-manager
struct ProfileView: View {
    var body: some View {
        ProfileForm()  // inside the scope: the work goes here
            .networkActivityOverlay()
            .networkActivityScope("Profile")
    }
}

struct ProfileForm: View {
    @Environment(\.networkIndicator) private var networkIndicator  // "Profile": ProfileForm is inside it
    @State private var name = ""

    var body: some View {
        Form {
            TextField("Name", text: $name)
            Button("Save") {
                Task {
                    // Any pattern works on the scope's manager: a token, a group, a tracked load.
                    await networkIndicator.withNetworkActivity(label: "save") { await save(name) }
                }
            }
        }
    }
}
// docs:end

@MainActor
func save(_ name: String) async {}

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-scope-settings
struct CheckoutView: View {
    var body: some View {
        CheckoutForm()  // inside the scope: it runs the payment
            .networkActivityOverlay(label: "Paying")
            // Draw at once, and block the form (touches, keys, VoiceOver) while it pays.
            .networkActivityScope("Checkout", settings: .init(showDelay: 0, interaction: .blocksHost))
    }
}
// docs:end
