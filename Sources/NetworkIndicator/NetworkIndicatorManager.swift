public import Foundation

/// Keeps one network activity indicator truthful while any number of tasks, on any threads,
/// start and finish.
///
/// Tell the manager when network work begins, in whichever of three ways fits the caller:
///
/// ```swift
/// // 1. An object whose lifetime is the task: the task ends when it is deallocated
/// //    (or, for an Operation or URLSessionTask, when it reports that it is finished).
/// NetworkIndicatorManager.shared.beganNetworkTask(withToken: operation)
///
/// // 2. An opaque token: the task ends when the last reference to it goes away.
/// var token: NetworkActivityToken? = NetworkIndicatorManager.shared.beganNetworkTask()
/// token = nil
///
/// // 3. An explicit finish, when you know you are done.
/// NetworkIndicatorManager.shared.beganNetworkTask(withToken: request)
/// NetworkIndicatorManager.shared.finishedNetworkTask(forToken: request)
/// ```
///
/// The manager keeps only **weak** references to caller tokens. A repeating timer on the main
/// queue (every ``NetworkIndicatorSettings/completionCheckInterval`` seconds, only while such tokens are tracked or a
/// finite ``NetworkIndicatorSettings/staleTaskThreshold`` is in force) sweeps out tokens that have died or report completion. The indicator's outputs
/// (``NetworkIndicatorOutput``, ``visibilityUpdates()``) are told on the main actor, after the
/// ``NetworkIndicatorSettings/startDelay`` and ``NetworkIndicatorSettings/completionDelay``.
///
/// ## Threads
///
/// Every method and property may be used from any thread, actor or task unless it is marked
/// `@MainActor`, and none blocks waiting for the main thread. ``activeTaskCount`` is exact as
/// soon as a call returns; outputs follow on the main queue, coalesced: however many calls
/// arrive, at most one main-queue hop is pending at a time.
///
/// ## Misuse
///
/// Nothing here traps. A finish or pop that matches no open task is ignored (the count never
/// goes negative and never absorbs a later begin) and reported once to ``diagnosticsHandler``.
public final class NetworkIndicatorManager: Sendable {
    /// The manager for the app's one indicator. It has no output until you add one (the
    /// `NetworkIndicatorUI` product has the status-bar spinner and in-app overlays).
    public static let shared = NetworkIndicatorManager()

    /// The engine: the tree of this manager behind one lock, outputs on the main actor.
    let driver: IndicatorDriver
    /// Stored so that comparing with it (``ownOpaqueToken(_:)``) is a load, not a metadata accessor call.
    private let opaqueTokenType = ObjectIdentifier(NetworkActivityToken.self)

    /// The scheduler this manager takes its time and main-thread work from: the one it was made
    /// with, or its root's for a child.
    ///
    /// Integrations and overlays that run a timer of their own in step with the manager (the
    /// openapi middleware's unread-body timeout, the overlays' show delay) use it, so that a test
    /// that advances a manual scheduler drives them too. Safe from any thread; it never changes.
    public var scheduler: any NetworkIndicatorScheduler { driver.scheduler }

    /// The observations bound to an owner, which their callers do not store.
    let ownerBoundObservations = OwnerBoundObservations()

    /// The determinate progress of the tasks begun with a `Progress`, beside the engine (see
    /// `NetworkIndicatorManager+Progress.swift`).
    let progressRollUp: ProgressRollUp

    /// The manager this one is a scope of, or `nil` for a root manager such as ``shared``.
    ///
    /// A child keeps its parent alive; see ``init(parent:label:)``.
    package let parent: NetworkIndicatorManager?

    /// Creates an independent manager (for a second indicator, or a test) that takes its time
    /// and main-thread work from `scheduler`. It has no outputs until you add some.
    ///
    /// ```swift
    /// let manager = NetworkIndicatorManager()                                     // the main queue
    /// let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())  // a test
    /// ```
    ///
    /// - Parameters:
    ///   - scheduler: ``MainQueueScheduler`` (the default) in production,
    ///     `ManualNetworkIndicatorScheduler` in tests.
    ///   - diagnosticsHandler: Receives misuse reports; see ``diagnosticsHandler``.
    public init(
        scheduler: any NetworkIndicatorScheduler = MainQueueScheduler(),
        diagnosticsHandler: @escaping NetworkIndicatorDiagnosticsHandler = NetworkIndicatorDiagnostic
            .standardErrorHandler
    ) {
        self.driver = IndicatorDriver(scheduler: scheduler, diagnosticsHandler: diagnosticsHandler)
        self.progressRollUp = ProgressRollUp(driver: driver)
        self.parent = nil
        // Its scopes share its scheduler, so a root's watch covers them.
        if scheduler is MainQueueScheduler { MainQueueWatchdog.watch(driver) }
    }

    /// Creates a manager whose tasks also count in `parent`'s tree; see ``init(parent:label:)``.
    init(childOf parent: NetworkIndicatorManager, label: String?) {
        self.driver = IndicatorDriver(childOf: parent.driver, label: label)
        self.progressRollUp = ProgressRollUp(driver: driver)
        self.parent = parent
    }

    deinit {
        // Its owner-bound observations hear the node's goodbye (`false`) before they go.
        driver.shutDown(keepingUntilRemoved: ownerBoundObservations)
        #if !canImport(ObjectiveC)
        // The tracked URLSession tasks it held until their completion go with it.
        URLSessionTaskPoller.managerWentAway(ObjectIdentifier(self))
        #endif
    }

    // MARK: - Beginning and finishing

    /// Begins a task that lasts until `token` is deallocated, reports itself finished (see
    /// ``NetworkActivityCompletionReporting``), or is passed to
    /// ``finishedNetworkTask(forToken:)-(Object)``.
    ///
    /// ```swift
    /// manager.beganNetworkTask(withToken: operation)                      // the card's pattern
    /// manager.beganNetworkTask(withToken: upload, progress: upload.progress)
    /// ```
    ///
    /// The manager holds `token` weakly and never extends its life. Beginning the same token
    /// twice opens two tasks: one finish ends one of them; the token's death ends all of them.
    /// Safe from any thread; O(1).
    ///
    /// With a `progress`, the task's units roll up into ``progressSnapshot()``
    /// (this manager's and every ancestor's) while `token` has an open
    /// task here: beginning the same token twice with two progresses counts both until the
    /// token's last task ends (twice with the same progress, once). To pause a task and resume it
    /// later, `pause()` its progress and end the task, then begin the task again with the same
    /// progress and `resume()` it: its units count once, kept across the pause. How a progress
    /// counts is in ``beganNetworkTask(label:progress:weight:file:line:)``. For a `URLSessionTask`, call
    /// ``track(_:label:file:line:)``: it does all of this (its bytes included) and ends the task as soon as
    /// it completes. A `URLSessionTask` begun here with its own `progress` is read as `track`
    /// reads it (the task's own `progress` may keep the task alive, reads a failed load as done,
    /// and never moves on Linux), with the `weight` given.
    ///
    /// - Parameters:
    ///   - token: Any object whose lifetime (or completion) is the task's: the task is the
    ///     object's, whatever type names it. Generic so that your object is passed as it is:
    ///     converted to `AnyObject` in your code, it would be retained and released around the
    ///     calls, slowly for an object held weakly (175 instructions a pair; Benchmarks/README.md,
    ///     "The token passed as it is"). A token that only `AnyObject` can type takes the
    ///     `AnyObject` form of this method.
    ///   - label: A name for ``activitySnapshot()`` and diagnostics; defaults to the token's
    ///     type (a `URLSessionTask` passed with its own `progress` is tracked as
    ///     ``track(_:label:file:line:)`` tracks it, and named by its request, `GET host/path`).
    ///     Only the label given with the token's first open task is kept.
    ///   - progress: The task's progress, or `nil` (the default) for none.
    ///   - weight: The units the whole task weighs instead of `progress.totalUnitCount`, or `nil`;
    ///     0 or less counts the task as one of unknown size.
    ///   - file: Where the task began, for ``activitySnapshot()`` and diagnostics: leave the
    ///     default, the caller's `#fileID` (a wrapper of yours passes its own caller's on).
    ///   - line: The line of `file`; leave the default, `#line`.
    @inlinable
    public func beganNetworkTask<Object: AnyObject>(
        withToken token: Object,
        label: String? = nil,
        progress: Progress? = nil,
        weight: Int64? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        // Inlined into the caller, whose literal `nil` removes the branch: the common path
        // (no progress) pays nothing for the optional parameters (pays: 21 instructions a pair
        // under callgrind, 1 084 against 1 063, when this was one function).
        let site = CallSite(fileID: file, line: line)
        guard let progress else { return beginTask(withToken: token, label: label, site: site) }
        beginTask(withToken: token, label: label, progress: progress, weight: weight, site: site)
    }

    /// ``beganNetworkTask(withToken:label:progress:weight:file:line:)-(Object,_,_,_,_,_)`` for a
    /// token the generic form cannot take: an expression that only `AnyObject` types (two
    /// unrelated classes behind `? :`), a class-bound protocol's existential (`any P`) in the
    /// Swift 5 language mode, which does not open it there, or the method as a function value
    /// without a written type. The same task, the same rules, from any thread. Marked
    /// `@_disfavoredOverload`, so that the compiler picks the generic form wherever it fits (a value
    /// typed `AnyObject` included): this one costs the caller a retain and a release of `token`.
    @_disfavoredOverload
    public func beganNetworkTask(
        withToken token: AnyObject,
        label: String? = nil,
        progress: Progress? = nil,
        weight: Int64? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        // The generic form, with `Object` == `AnyObject`: this one is disfavored.
        beganNetworkTask(withToken: token, label: label, progress: progress, weight: weight, file: file, line: line)
    }

    /// Opens a task of `token`, without progress.
    @usableFromInline
    func beginTask<Object: AnyObject>(withToken token: Object, label: String?, site: CallSite) {
        if let opaque = ownOpaqueToken(token) { return beginTask(of: opaque, label: label, site: site) }
        driver.apply(.begin(.token(token), label: label, site: site))
    }

    /// Opens one more task of this manager's own opaque `token`. Not inlined: with a second
    /// `apply` the optimizer inlined neither, and folded no switch (callgrind: 1 314 instructions
    /// an explicit pair against 1 198; Benchmarks/README.md, "One engine").
    @inline(never)
    private func beginTask(of token: NetworkActivityToken, label: String?, site: CallSite) {
        let outcome = driver.apply(.begin(.opaqueToken(token.pinned), label: label, site: site))
        assert(outcome == .applied, "a live opaque token always has its pinned slot")
    }

    /// Begins a task that lasts as long as the returned token lives.
    ///
    /// ```swift
    /// let activity = manager.beganNetworkTask(label: "Sync")
    /// let export = manager.beganNetworkTask(label: "Export", progress: exportProgress)
    /// ```
    ///
    /// Hold the token for as long as the work runs; releasing the last reference ends the task
    /// at once (no sweep is needed). Passing it to ``finishedNetworkTask(forToken:)-(Object)`` ends it
    /// earlier. Safe from any thread; O(1).
    ///
    /// With a `progress`, the task's units roll up into ``progressSnapshot()``
    /// (this manager's and every ancestor's). The progress is only
    /// remembered beside the task and read when a fraction is read, as Foundation advises
    /// (`fractionCompleted × totalUnitCount`, so the partial work of child progresses counts).
    /// Update it as often as you like: the manager never hears of it, so an update costs nothing
    /// here. A progress whose `totalUnitCount` is not positive (unknown yet) takes no part until
    /// it gets one. How ended, cancelled and paused tasks count is in ``progressSnapshot()``. This
    /// manager and each ancestor hold `progress` strongly until the task has ended and they fold
    /// its part: at their next reading, or their next begin with progress (their own or a
    /// descendant's). Passing the same `progress` to two running tasks counts its units twice. A
    /// plain `Progress` (which takes no lock on Linux) is read on the main queue only: change it
    /// there, or pass a ``NetworkActivityProgress`` (see "Showing progress").
    ///
    /// - Parameters:
    ///   - label: A name for ``activitySnapshot()`` and diagnostics.
    ///   - progress: The task's progress, or `nil` (the default) for none.
    ///   - weight: The units the whole task weighs in the roll-up instead of
    ///     `progress.totalUnitCount`, such as an estimate in bytes for a progress that counts
    ///     pages or files; `nil` to use its own total. 0 or less counts the task as one of
    ///     unknown size, as if begun without progress.
    ///   - file: Where the task began, for ``activitySnapshot()`` and diagnostics: leave the
    ///     default, the caller's `#fileID` (a wrapper of yours passes its own caller's on).
    ///   - line: The line of `file`; leave the default, `#line`.
    /// - Returns: The token. Discarding it ends the task immediately.
    @inlinable
    public func beganNetworkTask(
        label: String? = nil,
        progress: Progress? = nil,
        weight: Int64? = nil,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> NetworkActivityToken {
        // Inlined into the caller, as the form above.
        let site = CallSite(fileID: file, line: line)
        guard let progress else { return beginTask(label: label, site: site) }
        return beginTask(label: label, progress: progress, weight: weight, site: site)
    }

    /// Ends an opaque token's tasks for good and frees its slot (its release). Not inlined: a
    /// call with the manager borrowed, so that its driver is read without a retain and a
    /// release (Benchmarks/README.md, "The opaque token's release").
    @inline(never)
    func release(_ pinned: PinnedSlot) {
        driver.apply(.release(pinned))
    }

    /// Opens an opaque token's task, without progress.
    @usableFromInline
    func beginTask(label: String?, site: CallSite) -> NetworkActivityToken {
        // The driver pins the slot under its lock; the token is made here, after the lock.
        let outcome = driver.apply(.begin(.newOpaqueToken, label: label, site: site))
        guard case .pinned(let pinned) = outcome else {
            // The manager is gone (never here: the caller holds it): a pair that names nothing.
            return NetworkActivityToken(manager: self, pinned: PinnedSlot(slot: -1, generation: 0))
        }
        return NetworkActivityToken(manager: self, pinned: pinned)
    }

    /// `token` as this manager's own opaque token (which has a pinned slot here), or `nil`. A type
    /// comparison first, so that the cast runs only for opaque tokens, off the common path.
    func ownOpaqueToken(_ token: AnyObject) -> NetworkActivityToken? {
        guard ObjectIdentifier(type(of: token)) == opaqueTokenType, let opaque = token as? NetworkActivityToken,
            opaque.manager === self
        else { return nil }
        return opaque
    }

    /// Ends one task begun with `token`.
    ///
    /// A token that reports its completion (an `Operation`) may be finished by your completion
    /// code as well: if a sweep ended its tasks first, your finish (one per task begun) is
    /// absorbed, not reported, while the token lives. (A token of yours that runs again is
    /// reported again for a finish beyond its new tasks once a sweep has seen it running.)
    ///
    /// If `token` has no open task (never begun, already finished, ended by
    /// ``resetNetworkActivity()``) the call does nothing and reports
    /// ``NetworkIndicatorDiagnostic/Kind/unknownFinish``, with the label the token's tasks were
    /// begun with if they ended lately (the last 16 labelled tokens to end are remembered),
    /// otherwise where an opaque token's last task began (for a token of another manager, a
    /// scope's token finished here by mistake, its label or call site there), or a token's type
    /// name: the count never goes negative. If the
    /// entry at `token`'s address belongs to a token that is already deallocated (or is running
    /// its `deinit`), that entry's tasks end and ``NetworkIndicatorDiagnostic/Kind/finishAfterTokenDeath``
    /// is reported, with the label they were begun with (else the type's name): finish before
    /// releasing a token, not from its `deinit`. Safe from any thread,
    /// including a different one from the begin; O(1). Generic over the token's class, as
    /// ``beganNetworkTask(withToken:label:progress:weight:file:line:)-(Object,_,_,_,_,_)`` is: any static type of the
    /// same object names the same task.
    public func finishedNetworkTask<Object: AnyObject>(forToken token: Object) {
        let reference: TaskReference =
            if let opaque = ownOpaqueToken(token) { .pinned(opaque.pinned) } else { .key(ObjectIdentifier(token)) }
        switch driver.apply(.finish(reference)) {
        case .applied, .pinned, .outlivedParts:
            break
        case .stale:
            driver.report(
                .unknownFinish,
                label: lateFinishLabel(of: token, reference) ?? ActivityLabel.typeName(of: token)
            )
        case .tokenDead:
            let label = driver.read { $0.registry.labels.deadLabel(of: ObjectIdentifier(token)) } ?? nil
            driver.report(.finishAfterTokenDeath, label: label ?? ActivityLabel.typeName(of: token))
        }
    }

    /// What a finish of `token` that matched no task names it by, if more than its type: the label
    /// or call site this manager remembers, else, for an opaque token of another manager (a
    /// scope's token finished on the app's manager, say), its label or call site there.
    private func lateFinishLabel(of token: AnyObject, _ reference: TaskReference) -> String? {
        if let label = driver.read({ $0.registry.lateFinishLabel(of: reference) }) ?? nil { return label }
        guard case .key = reference, let opaque = token as? NetworkActivityToken, opaque.manager !== self else {
            return nil
        }
        return opaque.manager.driver.read { $0.registry.lateFinishLabel(of: .pinned(opaque.pinned)) } ?? nil
    }

    /// ``finishedNetworkTask(forToken:)-(Object)`` for a token the generic form cannot take; see
    /// ``beganNetworkTask(withToken:label:progress:weight:file:line:)-(AnyObject,_,_,_,_,_)``.
    /// The same task, the same rules, from any thread.
    @_disfavoredOverload
    public func finishedNetworkTask(forToken token: AnyObject) {
        finishedNetworkTask(forToken: token)  // the generic form: this one is disfavored
    }

    // MARK: - State

    /// The number of open tasks of every kind (tokens, opaque tokens, pushes, groups). Exact as
    /// soon as the call that changed it returns, on any thread.
    public var activeTaskCount: Int {
        driver.read { $0.activeTaskCount } ?? 0
    }

    /// What the outputs were last told: whether the indicator is showing now.
    ///
    /// It lags ``activeTaskCount`` by a main-queue hop and by the start and completion delays.
    @MainActor
    package var isIndicatorVisible: Bool {
        driver.delivery.isVisible(driver.node)
    }

    /// Passes a diagnostic about `label` to this manager's handler, on the calling thread: for
    /// the UI product, which reports misuse the manager cannot see (an overlay bound to `.shared`
    /// by default).
    package func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        driver.report(kind, label: label)
    }
}

/// Where a task began in the caller's code: the `#fileID` and `#line` of the public call that
/// began it, kept without allocating (a `StaticString` is a pointer to the binary's text).
@usableFromInline
struct CallSite: Sendable {
    let fileID: StaticString
    let line: UInt32

    /// The site of a call with `fileID` and `line` (`#fileID` and `#line` where the caller wrote
    /// nothing); a line past `UInt32.max` is cut to it.
    @usableFromInline
    init(fileID: StaticString, line: UInt) {
        self.fileID = fileID
        self.line = UInt32(clamping: line)
    }

    /// No site: a slot that never held a task.
    static let none = CallSite(fileID: "", line: 0)

    /// `File.swift:42`: the file's name without its module, and the line; `nil` for ``none``.
    var name: String? {
        guard line > 0 else { return nil }
        let fileID = fileID.description
        let file = fileID.lastIndex(of: "/").map { fileID[fileID.index(after: $0)...] } ?? Substring(fileID)
        return "\(file):\(line)"
    }
}
