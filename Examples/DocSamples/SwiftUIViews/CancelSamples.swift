import Foundation
import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-cancel
struct ThumbnailsView: View {
    let posts: [Post]

    var body: some View {
        ThumbnailsList(posts: posts)  // inside the scope: its work counts in "Thumbnails"
            .networkActivityOverlay(hasContent: !posts.isEmpty)  // rows shown: the light indicator
            .networkActivityScope("Thumbnails")
    }
}

struct ThumbnailsList: View {
    let posts: [Post]
    @Environment(\.networkIndicator) private var networkIndicator  // "Thumbnails"

    var body: some View {
        List(posts) { PostRow(post: $0) }
            .onAppear {
                for post in posts {  // prefetch the thumbnails
                    let task = URLSession.shared.dataTask(with: post.thumbnailURL)
                    networkIndicator.track(task)
                    task.resume()
                }
            }
            .onDisappear { networkIndicator.cancelNetworkTasks() }  // the prefetches stop with the view
    }
}
// docs:end
