import NetworkIndicator
import NetworkIndicatorUI
import SwiftUI

struct Message: Identifiable, Sendable {
    let id: Int
    let subject: String
}

/// The app's one API client, shared by every screen (a stand-in for a generated client whose
/// middlewares include `NetworkActivityMiddleware()`).
enum MailAPI {
    static func loadMessages() async throws -> [Message] {
        [Message(id: 1, subject: "Welcome")]
    }
}

// `NetworkIndicatorManager.current` needs the Swift 6 SDKs (see its file): the Swift 5.9 SDKs of
// the Apple check skip this sample, which Linux cannot build either (SwiftUI).
#if canImport(Synchronization)
@MainActor  // Xcode 16 infers it; the Swift 5.9 SDKs of the check do not
// docs:begin swiftui-current-manager
struct MessagesScreen: View {
    var body: some View {
        MessagesList()  // inside the scope: its environment holds "Messages"
            .networkActivityScope("Messages")
    }
}

struct MessagesList: View {
    @Environment(\.networkIndicator) private var networkIndicator  // "Messages"
    @State private var messages: [Message] = []

    var body: some View {
        List(messages) { Text($0.subject) }
            // Inside the scope, too: a reload over loaded messages draws the light indicator.
            .networkActivityOverlay(hasContent: !messages.isEmpty)
            .task {
                // Every request of the shared client in here counts in "Messages".
                messages = await NetworkIndicatorManager.$current.withValue(networkIndicator) {
                    (try? await MailAPI.loadMessages()) ?? []
                }
            }
    }
}
// docs:end
#endif
