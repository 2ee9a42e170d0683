// Stand-ins for an app's own types, so that the samples compile; not quoted anywhere.
import Foundation
import SwiftUI

struct Post: Identifiable, Sendable {
    let id: Int
    let title: String
    var thumbnailURL: URL { URL(string: "https://example.com/\(id).jpg")! }
}

struct Item: Identifiable, Sendable {
    let id: Int
    let name: String
}

struct PostRow: View {
    let post: Post
    var body: some View { Text(post.title) }
}

struct ItemRow: View {
    let item: Item
    var body: some View { Text(item.name) }
}

enum API {
    static func loadPosts() async throws -> [Post] {
        try await Task.sleep(nanoseconds: 300_000_000)
        return (1...20).map { Post(id: $0, title: "Post \($0)") }
    }
}

/// The sample's `api`, an app's networking layer.
let api = API.self

struct CheckoutForm: View {
    var body: some View { Form { Button("Pay") {} } }
}
