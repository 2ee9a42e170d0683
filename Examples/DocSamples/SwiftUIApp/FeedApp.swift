import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

struct FeedView: View {
    var body: some View { Text("Feed") }
}

struct ProfileView: View {
    var body: some View { Text("Profile") }
}

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-app
@main
struct FeedApp: App {
    @State private var networkActivity = NetworkIndicatorModel(manager: .shared)

    var body: some Scene {
        WindowGroup {
            TabView {
                FeedView().tabItem { Label("Feed", systemImage: "list.bullet") }
                ProfileView().tabItem { Label("Profile", systemImage: "person") }
            }
            .overlay(alignment: .topTrailing) {
                if networkActivity.isVisible { ProgressView().padding() }
            }
        }
    }
}
// docs:end
