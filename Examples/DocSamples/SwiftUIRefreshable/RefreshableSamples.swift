import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

struct Article: Identifiable, Sendable {
    let id: Int
    let title: String
}

@MainActor
final class ArticlesModel: ObservableObject {
    @Published private(set) var articles: [Article] = []

    func load() async {
        try? await Task.sleep(nanoseconds: 300_000_000)
        articles = (1...20).map { Article(id: $0, title: "Article \($0)") }
    }
}

@available(iOS 15, macOS 12, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-refreshable
struct ArticlesView: View {
    @StateObject private var model = ArticlesModel()

    var body: some View {
        List(model.articles) { Text($0.title) }
            .networkActivityTask(label: "articles") { await model.load() }  // the first load: the overlay shows it
            .networkActivityRefreshable(label: "refresh") { await model.load() }  // the refresh control shows it
            // The scope's "Loading" (a light indicator once rows show), never a second spinner for a refresh
            .networkActivityOverlay(hasContent: !model.articles.isEmpty)
            .networkActivityScope("Articles")  // written below the modifiers that use it
    }
}
// docs:end

@available(iOS 15, macOS 12, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-scope-container
struct LibraryView: View {
    @StateObject private var model = ArticlesModel()

    var body: some View {
        List(model.articles) { Text($0.title) }
            .networkActivityTask(label: "library") { await model.load() }
            .networkActivityRefreshable(label: "refresh") { await model.load() }
            .networkActivityOverlay(hasContent: !model.articles.isEmpty)
            .networkActivityScope("Library", settings: .init(showDelay: 0.3))
    }
}
// docs:end

@available(iOS 15, macOS 12, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-custom-overlay
struct SyncView: View {
    @StateObject private var model = ArticlesModel()

    var body: some View {
        List(model.articles) { Text($0.title) }
            .networkActivityTask(label: "sync") { await model.load() }
            .networkActivityOverlay(hasContent: !model.articles.isEmpty, settings: .init(interaction: .blocksCard)) {
                Label("Syncing", systemImage: "arrow.triangle.2.circlepath")
                    .padding()
                    .background(.thinMaterial, in: Capsule())
            }
            .networkActivityScope("Sync")
    }
}
// docs:end

@available(iOS 16, macOS 13, *)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-overlay-resource
struct InboxView: View {
    @StateObject private var model = ArticlesModel()

    var body: some View {
        List(model.articles) { Text($0.title) }
            .networkActivityTask(label: "inbox") { await model.load() }
            .networkActivityOverlay(
                hasContent: !model.articles.isEmpty,
                title: LocalizedStringResource("Loading messages", bundle: .main)
            )
            .networkActivityScope("Inbox")
    }
}
// docs:end
