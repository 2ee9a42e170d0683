import OpenAPIRuntime

/// The bytes of a request body, unchanged, reporting how far the transport has read them to the
/// request's progress (which ignores the reports once the response has arrived).
struct UploadTrackingBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let upstream: HTTPBody
    let progress: RequestProgress

    func makeAsyncIterator() -> Iterator {
        Iterator(upstream: upstream.makeAsyncIterator(), progress: progress)
    }

    /// Reads the upstream body, reporting the bytes read so far after each chunk.
    struct Iterator: AsyncIteratorProtocol {
        var upstream: HTTPBody.Iterator
        let progress: RequestProgress
        var bytesRead: Int64 = 0

        mutating func next() async throws -> Element? {
            guard let chunk = try await upstream.next() else { return nil }
            bytesRead = RequestProgressState.saturatingSum(bytesRead, Int64(chunk.count))
            progress.sent(upTo: bytesRead)
            return chunk
        }
    }
}
