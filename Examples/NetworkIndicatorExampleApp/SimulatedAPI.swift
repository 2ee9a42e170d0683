import Foundation

/// The app's "network": every call waits a while and answers from memory, so that the example
/// runs offline, in the simulator or on a device.
enum SimulatedAPI {
    struct Post: Identifiable, Hashable, Sendable {
        let id: Int
        let title: String
    }

    struct Event: Identifiable, Sendable {
        let id: Int
        let text: String
    }

    static func posts(page: Int) async throws -> [Post] {
        try await latency(seconds: 1.2)
        return (1...15).map { Post(id: page * 100 + $0, title: "Post \(page * 100 + $0)") }
    }

    static func comments(for post: Post) async throws -> [String] {
        try await latency(seconds: 0.8)
        return (1...5).map { "Comment \($0) on \(post.title)" }
    }

    static func files() async throws -> [String] {
        try await latency(seconds: 1.5)
        return ["Report.pdf", "Photos.zip", "Slides.key", "Notes.txt", "Budget.numbers"]
    }

    /// Server-sent events: one every half second, ten in all, then the stream ends.
    static func events() -> AsyncThrowingStream<Event, any Error> {
        AsyncThrowingStream { continuation in
            let producer = Task {
                for id in 1...10 {
                    try await latency(seconds: 0.5)
                    let time = Date.now.formatted(date: .omitted, time: .standard)
                    continuation.yield(Event(id: id, text: "Event \(id) at \(time)"))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in producer.cancel() }
        }
    }

    private static func latency(seconds: Double) async throws {
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
