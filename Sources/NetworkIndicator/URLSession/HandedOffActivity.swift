/// A network task begun before its sequence exists (while a request waits for its response
/// headers), handed to the first iterator of that sequence: the task covers the request and the
/// body as one, with no gap and no overlap.
///
/// The handoff holds the task until an iterator takes it; a sequence dropped unread releases
/// the handoff, and with it the task.
final class ActivityHandoff: Sendable {
    private let activity: LockedState<NetworkActivityToken?>

    init(_ activity: NetworkActivityToken) {
        self.activity = LockedState(activity)
    }

    /// The task, for the first caller only.
    func take() -> NetworkActivityToken? {
        activity.withLock { activity in
            defer { activity = nil }
            return activity
        }
    }
}

/// Iterates `base` with one network task open: the handed-off one, or else one begun at the
/// first `next()`. The task ends when the base finishes or throws (cancellation included: the
/// base is expected to throw when its task is cancelled, as `URLSession.AsyncBytes` does), or
/// when the iterator is released. No cancellation handler per element: a byte sequence calls
/// `next()` once per byte.
struct HandedOffActivityIterator<Base: AsyncIteratorProtocol> {
    private var base: Base
    private var activity: NetworkActivityToken?
    private let manager: NetworkIndicatorManager
    private let label: String
    private var isDone = false

    init(base: Base, handoff: ActivityHandoff, manager: NetworkIndicatorManager, label: String) {
        self.base = base
        self.activity = handoff.take()
        self.manager = manager
        self.label = label
    }

    mutating func next() async throws -> Base.Element? {
        guard !isDone else { return nil }
        if activity == nil { activity = manager.beganNetworkTask(label: label) }
        do {
            guard let element = try await base.next() else {
                finish()
                return nil
            }
            return element
        } catch {
            finish()
            throw error
        }
    }

    private mutating func finish() {
        isDone = true
        activity?.end()
        activity = nil
    }
}
