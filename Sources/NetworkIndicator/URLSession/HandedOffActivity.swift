/// The network task of a load whose body is read after the call returns (`bytes(for:tracking:)`):
/// begun at the call, handed to the first iterator of the body, ended when the body finishes,
/// fails or is dropped, and cancellable by ``NetworkIndicatorManager/cancelNetworkTasks()``
/// throughout.
///
/// Its entry is a load's (`.load`, never swept) keyed by ``cancellation``, which the entry holds
/// weakly and this object strongly: a cancel reaches the load's current cancel action, and
/// releasing this object ends the task at once.
@usableFromInline
final class HandedOffLoad: Sendable {
    let manager: NetworkIndicatorManager
    let cancellation = LoadCancellation()

    /// Begins the task in `manager`, labelled `label`; releasing the load ends it.
    @usableFromInline
    init(manager: NetworkIndicatorManager, label: String) {
        self.manager = manager
        manager.driver.begin(ObjectIdentifier(cancellation), object: cancellation, kind: .load, label: label)
    }

    deinit {
        end()
    }

    /// Ends the task; later calls (and the manager's cancel, which ended it already) do nothing.
    @usableFromInline
    func end() {
        manager.driver.finishAll(ObjectIdentifier(cancellation))
    }

    /// Begins a task in `manager`, then runs `open` (the request, until its response's headers)
    /// as the async helpers run their loads: the manager's cancel or the calling task's makes
    /// the call throw `URLError(.cancelled)` at once and cancels `open`'s task. Once `open` has
    /// returned, a cancel runs `cancelBody(body)` instead, which must make the body's reads
    /// throw (a `URLSession.AsyncBytes` whose task is cancelled does).
    ///
    /// Returns the body, the response and the handoff that carries the task to the body's
    /// first iterator; a throw ends the task.
    static func open<Body, Response>(
        in manager: NetworkIndicatorManager,
        label: String,
        _ open: @escaping @Sendable () async throws -> (Body, Response),
        cancelBody: (Body) -> @Sendable () -> Void
    ) async throws -> (body: Body, response: Response, handoff: ActivityHandoff) {
        let load = HandedOffLoad(manager: manager, label: label)
        let headers = CancellableLoad<Opened<Body, Response>>()
        load.cancellation.whenCancelled { headers.cancel() }
        let opened = try await headers.run { Opened(value: try await open()) }
        load.cancellation.whenCancelled(cancelBody(opened.value.0))
        return (opened.value.0, opened.value.1, ActivityHandoff(load))
    }
}

/// `open`'s answer, carried from the load's task to the caller once.
///
/// `@unchecked Sendable`: the body (a `URLSession.AsyncBytes`, not `Sendable`) is made in the
/// load's task and handed over through ``CancellableLoad``'s continuation exactly once; the
/// load's task keeps no reference to it, so no two tasks ever touch it at the same time.
private struct Opened<Body, Response>: @unchecked Sendable {
    let value: (Body, Response)
}

/// What a cancel of a ``HandedOffLoad`` does: the one action set last, run at most once.
final class LoadCancellation: NetworkActivityCancellable, Sendable {
    private let state = LockedState<(isCancelled: Bool, action: (@Sendable () -> Void)?)>((false, nil))

    /// Runs the current action (after the lock); later calls do nothing.
    func cancel() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.isCancelled else { return nil }
            state.isCancelled = true
            defer { state.action = nil }
            return state.action
        }
        action?()
    }

    /// Makes `action` what a cancel does, in place of the one before; runs it at once if the
    /// load was cancelled already.
    func whenCancelled(_ action: @escaping @Sendable () -> Void) {
        let isCancelled = state.withLock { state in
            if !state.isCancelled { state.action = action }
            return state.isCancelled
        }
        if isCancelled { action() }
    }
}

/// A network task begun before its sequence exists (while a request waits for its response
/// headers), handed to the first iterator of that sequence: the task covers the request and the
/// body as one, with no gap and no overlap.
///
/// The handoff holds the task until an iterator takes it; a sequence dropped unread releases
/// the handoff, and with it the task.
final class ActivityHandoff: Sendable {
    private let activity: LockedState<HandedOffLoad?>

    /// Holds `activity` for the first iterator.
    init(_ activity: HandedOffLoad) {
        self.activity = LockedState(activity)
    }

    /// The task, for the first caller only.
    /// Ends the load's task and leaves the load for the first iterator, which then opens none:
    /// for a load that its session's filter does not count. Safe from any thread.
    func endTask() {
        activity.withLock { $0 }?.end()
    }

    func take() -> HandedOffLoad? {
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
@usableFromInline
struct HandedOffActivityIterator<Base: AsyncIteratorProtocol> {
    // Inlinable, so that a byte loop specializes and inlines it, base included (about 1 ns a
    // byte against 127 unspecialized: Benchmarks/README.md, "Byte sequences and groups").
    @usableFromInline var base: Base
    @usableFromInline var activity: HandedOffLoad?
    @usableFromInline let manager: NetworkIndicatorManager
    @usableFromInline let label: String
    @usableFromInline var isDone = false

    /// Iterates `base`, with the task of `handoff` (if no other iterator took it first).
    init(base: Base, handoff: ActivityHandoff, manager: NetworkIndicatorManager, label: String) {
        self.base = base
        self.activity = handoff.take()
        self.manager = manager
        self.label = label
    }

    /// The base's next element; `nil` (and the task ended) at its end; a throw ends the task.
    @inlinable
    mutating func next() async throws -> Base.Element? {
        guard !isDone else { return nil }
        // A second iteration's own task: a cancel ends it, with no work to stop.
        if activity == nil { activity = HandedOffLoad(manager: manager, label: label) }
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

    @inlinable
    mutating func finish() {
        isDone = true
        activity?.end()
        activity = nil
    }
}

/// The iterator under `bytes(for:tracking:)` over any base, with a task of its own handed to it
/// at once: SPI for the benchmarks (`Benchmarks/`), which measure its cost per element on
/// Linux, where `URLSession.AsyncBytes` does not exist. Not for apps.
@_spi(Benchmarks)
public struct HandedOffActivityBenchmarkIterator<Base: AsyncIteratorProtocol> {
    @usableFromInline var core: HandedOffActivityIterator<Base>

    /// Begins a task labelled `label` in `manager` and hands it to an iterator of `base`.
    public init(base: Base, manager: NetworkIndicatorManager, label: String) {
        let handoff = ActivityHandoff(HandedOffLoad(manager: manager, label: label))
        core = HandedOffActivityIterator(base: base, handoff: handoff, manager: manager, label: label)
    }

    /// The base's next element, as `bytes(for:tracking:)`'s iterator returns it.
    @inlinable
    public mutating func next() async throws -> Base.Element? {
        try await core.next()
    }
}
