/// A client's own share of the network activity, which it can cancel without touching anyone
/// else's (the pattern of Gilt's `MBNetworkIndicator`).
///
/// Each group keeps its own count and adds it to its manager's total.
///
/// ```swift
/// final class FeedLoader {
///     private let activity = NetworkActivityGroup()
///     func load() { activity.operationStarted(); api.fetch { _ in self.activity.operationFinished() } }
///     func cancel() { activity.cancelOperations() }
/// }
/// ```
///
/// Releasing the group ends whatever it still has open. All methods are safe from any thread,
/// and O(1) while no task with progress is listed (each method says what it costs otherwise).
/// The group keeps its manager alive.
public final class NetworkActivityGroup: Sendable {
    /// The manager this group contributes to.
    let manager: NetworkIndicatorManager
    /// The identity of the group's entry (internal for `NetworkActivityGroup+Progress.swift`).
    let key = ActivityKey()
    private let label: String

    /// Creates an empty group that contributes to `manager`.
    ///
    /// - Parameters:
    ///   - manager: The manager whose indicator the group drives; `.shared` by default.
    ///   - label: A name for ``NetworkIndicatorManager/activitySnapshot()`` and diagnostics.
    public init(manager: NetworkIndicatorManager = .shared, label: String = "NetworkActivityGroup") {
        self.manager = manager
        self.label = label
    }

    deinit {
        manager.driver.apply(.finishAll(ObjectIdentifier(key)))
    }

    /// The number of this group's operations that are open. Exact on any thread.
    public var activeOperationCount: Int {
        manager.driver.read { $0.registry.groupCount(for: ObjectIdentifier(key)) } ?? 0
    }

    /// Begins one operation in this group. Safe from any thread; O(1) while the manager lists no
    /// task with progress, else O(those listed): the group's listed parts are outlived by this
    /// operation, and the complete ones leave as done at once (see
    /// ``operationStarted(progress:weight:file:line:)``).
    ///
    /// - Parameters:
    ///   - file: Where the operation began, for snapshots and diagnostics (a group shows where
    ///     its first open operation began): leave the default, the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    public func operationStarted(file: StaticString = #fileID, line: UInt = #line) {
        // Parts of earlier operations it outlives leave now if complete (see `operationStarted(progress:)`).
        if begin(site: CallSite(fileID: file, line: line)) { manager.settleProgress() }
    }

    /// Begins one operation begun at `site`; returns whether it outlived parts of the group
    /// still listed, which the caller then settles.
    func begin(site: CallSite) -> Bool {
        manager.driver.apply(beginEvent(site: site)) == .outlivedParts
    }

    /// The event of one more operation of this group, begun at `site`.
    func beginEvent(site: CallSite) -> TaskEvent {
        .begin(.keyed(ObjectIdentifier(key), object: key, kind: .group), label: label, site: site)
    }

    /// Ends one operation of this group. With none open (more finishes than starts, or after
    /// ``cancelOperations()`` or a manager reset) it ends nothing (it never takes from another
    /// group) and reports ``NetworkIndicatorDiagnostic/Kind/groupFinishWithoutStart``; it lets
    /// go of the work held since ``operationStoppedCounting()``, which you say is done.
    public func operationFinished() {
        if manager.driver.apply(.finish(.key(ObjectIdentifier(key)))) != .applied {
            manager.driver.report(.groupFinishWithoutStart, label: label)
        }
        // The finished operation's part leaves its batch now, as done: a later cancel of the
        // group's other operations fails only the parts it finds running.
        if key.hasProgressParts { manager.settleProgress() }
    }

    /// Ends one operation's count while its work goes on unseen (a live stream whose headers
    /// have arrived): the indicator no longer waits for it, but the work stays the screen's.
    /// Until the group is released, or an ``operationFinished()`` with no operation open says the
    /// work is done, the next ``NetworkIndicatorManager/cancelNetworkTasks()`` of the group's
    /// manager (or of an ancestor) calls ``cancellationHandler``, once, even with no operation
    /// open.
    ///
    /// ```swift
    /// feed.operationStarted()
    /// let stream = try await openStream()      // headers here: stop the spinner
    /// feed.operationStoppedCounting()          // the screen's cancel still stops the stream
    /// ```
    ///
    /// The manager holds the group weakly: release the group when the work ends. With no
    /// operation open it does nothing and reports
    /// ``NetworkIndicatorDiagnostic/Kind/groupFinishWithoutStart``, as ``operationFinished()``
    /// does; the late call of an operation that a cancel ended is absorbed silently, and its
    /// work (told to stop by that cancel) is not held for the next one. Safe from any thread;
    /// O(1) amortized (the manager lets go of the held work of released groups each time what
    /// it holds has doubled), and, once the group has begun an operation with progress, a fold
    /// of the manager's listed parts.
    public func operationStoppedCounting() {
        if manager.driver.apply(.stopCounting(ObjectIdentifier(key), object: key)) != .applied {
            manager.driver.report(.groupFinishWithoutStart, label: label)
        }
        // As for a finish: the part the group's rule ends leaves now, not at the next reading.
        if key.hasProgressParts { manager.settleProgress() }
    }

    /// Ends every open operation of this group, and only of this group. Finishes that arrive
    /// afterwards for those operations are ignored and reported while the group has no
    /// operation open; once it has begun one again, a late finish ends it (a finish carries
    /// nothing that tells an old operation from a new one: with late completions to come, use
    /// a new group for the new work). (It is the group's own call: it does not call
    /// ``cancellationHandler``.)
    ///
    /// Progress: each part of the group still running leaves its batch, whatever its `Progress`
    /// reads, as a manager's ``NetworkIndicatorManager/cancelNetworkTasks()`` makes it leave (the
    /// bar neither jumps forward nor counts units that never came); a part that the group's
    /// rules ended before (its operation finished, or a complete part that a later operation
    /// outlived) stays done. An operation begun with progress on another thread is either
    /// ended with the others, its part leaving, or runs on, measured. (A plain `Progress` of
    /// Foundation's is read on the main queue only: called elsewhere, the cancel takes a part
    /// whose operation finished since the main queue last read it for a running one, as
    /// ``NetworkIndicatorManager/cancelNetworkTasks()`` does. A ``NetworkActivityProgress`` is
    /// read on any thread.)
    ///
    /// Safe from any thread. O(1) while no task with progress is listed; otherwise it also notes
    /// the group's parts ended and folds the manager's parts, O(the parts listed in the group's
    /// manager).
    public func cancelOperations() {
        // A part the group's rules end (complete, and outlived by a later operation) leaves as
        // done before the cancel, read since or not, as at a manager's cancel: the group's parts
        // share one failure record, which the cancel fails.
        if key.hasProgressParts { manager.settleProgress() }
        // The parts begun so far fail in the hold that ends their operations, as a manager's
        // cancel fails them: a begin on another thread is either ended and failed or neither.
        _ = manager.driver.apply(
            .finishAll(ObjectIdentifier(key)),
            before: { _ in key.recordCancellation() },
            then: { _, _ in }
        )
        // They leave now, read since or not.
        if key.hasProgressParts { manager.settleProgress() }
    }

    /// Called when ``NetworkIndicatorManager/cancelNetworkTasks()`` (of the group's manager or
    /// of an ancestor) ends the group's open operations, so that the client stops its own work.
    ///
    /// ```swift
    /// @MainActor final class FeedViewModel {
    ///     private let activity = NetworkActivityGroup(label: "Feed")
    ///     private var load: Task<Void, Never>?
    ///
    ///     init() {
    ///         // Called on the canceller's thread: hop to the main actor, where `load` lives.
    ///         activity.cancellationHandler = { [weak self] in
    ///             Task { @MainActor in self?.load?.cancel() }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// The handler is `@Sendable`: it captures what may cross threads (a main-actor object, as
    /// here, or an object of yours that is `Sendable`), not a plain class's `self`.
    ///
    /// Called once per such cancel that finds the group with open operations, or with work
    /// held since ``operationStoppedCounting()`` (neither: not called), on the thread that
    /// called `cancelNetworkTasks()`, after the manager's lock is
    /// released, so it may call back into the manager or the group. The operations have ended
    /// by then; their ``operationFinished()`` calls that arrive later are absorbed silently.
    /// The group keeps the handler until it is replaced or the group is released: capture the
    /// group or its owner weakly. Safe to set and read from any thread; `nil` by default.
    public var cancellationHandler: (@Sendable () -> Void)? {
        get { key.handler }
        set {
            // The old handler (and what it captured) is released after the lock.
            withExtendedLifetime(key.replaceHandler(with: newValue)) {}
        }
    }
}

/// An object that exists only to give a group's entry an identity no caller can hold; it holds
/// the group's ``NetworkActivityGroup/cancellationHandler``, which a cancel reaches through the
/// entry's weak reference to it.
final class ActivityKey: FailsProgressWhenCancelled, Sendable {
    private struct State {
        var handler: (@Sendable () -> Void)?
        /// Where the parts begun since the last cancel record that a cancel failed them; `nil`
        /// until the group's first operation with progress.
        var partsFailure: FailureRecord?
    }

    /// One box for both, so that a group costs one allocation more than its key.
    private let state = LockedState(State())

    /// The group's ``NetworkActivityGroup/cancellationHandler``.
    var handler: (@Sendable () -> Void)? {
        state.withLock { $0.handler }
    }

    /// Sets the handler; returns the old one, to release after the lock.
    func replaceHandler(with handler: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
        state.withLock { state in
            defer { state.handler = handler }
            return state.handler
        }
    }

    /// Whether an operation with progress was ever begun in the group.
    var hasProgressParts: Bool {
        state.withLock { $0.partsFailure != nil }
    }

    /// The record a new part of the group reads its cancel from.
    func failureOfNewPart() -> FailureRecord {
        state.withLock { state in
            if let record = state.partsFailure { return record }
            let new = FailureRecord()
            state.partsFailure = new
            return new
        }
    }

    /// A cancel ends every open operation: the parts begun so far fail, later ones start afresh.
    func recordCancellation() {
        state.withLock { state in
            guard let cancelled = state.partsFailure else { return }
            cancelled.recordFailure()
            state.partsFailure = FailureRecord()
        }
    }

    /// The manager's cancel ended the group's operations: tells the handler (outside its lock).
    func cancel() {
        handler?()
    }
}
