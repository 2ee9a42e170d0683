import Foundation
import OpenAPIRuntime

/// How far the transport has read a request body of known length, published to the request's
/// `Progress` until the response arrives.
///
/// Safe from any thread: the count sits behind a lock, and the progress is set under it so that
/// two iterators (a retrying middleware reads a body again) cannot publish out of order. No code
/// of anyone else's runs under it: the progress is the middleware's own, with no parent and no
/// observer.
final class UploadProgress: Sendable {
    private struct State: Sendable {
        var sent: Int64 = 0
        var isOver = false
    }

    /// The body's length in bytes, positive.
    let total: Int64
    private let progress: Progress
    private let state = LockedValue(State())

    init(total: Int64, progress: Progress) {
        self.total = total
        self.progress = progress
        progress.totalUnitCount = total
    }

    /// The transport has read `count` bytes of the body so far, through one iterator; only the
    /// furthest read counts.
    func sent(upTo count: Int64) {
        state.withLock { state in
            guard !state.isOver, count > state.sent else { return }
            state.sent = min(count, total)
            progress.completedUnitCount = state.sent
        }
    }

    /// The response arrived (or the request failed): reads of the body no longer count, and the
    /// response's part of the progress takes over.
    func end() {
        state.withLock { $0.isOver = true }
    }
}

/// The bytes of a request body, unchanged, reporting how far the transport has read them.
struct UploadTrackingBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let upstream: HTTPBody
    let upload: UploadProgress

    func makeAsyncIterator() -> Iterator {
        Iterator(upstream: upstream.makeAsyncIterator(), upload: upload)
    }

    /// Reads the upstream body, reporting the bytes read so far after each chunk.
    struct Iterator: AsyncIteratorProtocol {
        var upstream: HTTPBody.Iterator
        let upload: UploadProgress
        var bytesRead: Int64 = 0

        mutating func next() async throws -> Element? {
            guard let chunk = try await upstream.next() else { return nil }
            bytesRead += Int64(chunk.count)
            upload.sent(upTo: bytesRead)
            return chunk
        }
    }
}
