import NetworkIndicator
import OpenAPIRuntime

/// The bytes of a response body, unchanged, reporting to the body's ``ResponseBodyActivity``:
/// the task ends when an iterator reaches the end or its read throws (a read that starts after
/// the manager cancelled the request throws `CancellationError`), and, for a body that can
/// be iterated only once, when its iterator is released before the end (nothing can read the
/// body after that).
///
/// A body that can be iterated many times stays open when one iterator is dropped early: it may
/// be read again. It ends when it is read to the end, when the body itself is released, or on
/// the unread-body timeout.
struct ActivityTrackingBody: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk

    let upstream: HTTPBody
    let activity: ResponseBodyActivity

    func makeAsyncIterator() -> Iterator {
        Iterator(
            upstream: upstream.makeAsyncIterator(),
            activity: activity,
            releaseGuard: upstream.iterationBehavior == .single ? ReleaseGuard(activity: activity) : nil
        )
    }

    /// Reads the upstream body, reporting each read.
    struct Iterator: AsyncIteratorProtocol {
        var upstream: HTTPBody.Iterator
        let activity: ResponseBodyActivity
        let releaseGuard: ReleaseGuard?
        /// The bytes this iterator has read, for the task's progress.
        var bytesRead: Int64 = 0

        mutating func next() async throws -> Element? {
            guard !activity.isCancelled else {
                activity.end()
                throw CancellationError()
            }
            let counted = activity.readWillBegin()
            let chunk: Element?
            do {
                chunk = try await upstream.next()
            } catch {
                activity.end()
                throw error
            }
            guard let chunk else {
                activity.end(reachedEnd: true)
                return nil
            }
            if counted {
                activity.readDidEnd()
            }
            bytesRead = RequestProgressState.saturatingSum(bytesRead, Int64(chunk.count))
            activity.bodyBytesRead(upTo: bytesRead)
            return chunk
        }
    }

    /// Ends the task when the one iterator of a single-iteration body is released: iterators are
    /// structs, so the `deinit` lives in this class.
    final class ReleaseGuard: Sendable {
        let activity: ResponseBodyActivity

        init(activity: ResponseBodyActivity) {
            self.activity = activity
        }

        deinit {
            activity.end()
        }
    }
}
