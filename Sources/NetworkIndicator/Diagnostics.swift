public import Foundation

/// A report of misuse or of a suspicious task, passed to a manager's
/// ``NetworkIndicatorManager/diagnosticsHandler``.
///
/// Misuse never crashes and never corrupts the count: the offending call is ignored (or, for a
/// dead token, its tasks end) and one diagnostic describes what happened.
public struct NetworkIndicatorDiagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// ``NetworkIndicatorManager/finishedNetworkTask(forToken:)-(Object)`` for a token with no open
        /// task: never begun, already finished, or ended by a reset. Ignored.
        case unknownFinish
        /// ``NetworkIndicatorManager/finishedNetworkTask(forToken:)-(Object)`` found the tasks of a token
        /// that is already deallocated (or running its `deinit`) at that address. Those tasks
        /// end; the call ends nothing else.
        case finishAfterTokenDeath
        /// ``NetworkIndicatorManager/popNetworkActivity()`` with no push outstanding. Ignored.
        case popWithoutPush
        /// ``NetworkActivityGroup/operationFinished()`` or
        /// ``NetworkActivityGroup/operationStoppedCounting()`` with no operation outstanding in
        /// that group. Ignored.
        case groupFinishWithoutStart
        /// A token, group or push counter has had a task open for longer than
        /// the stale-task threshold in force (``NetworkIndicatorSettings/staleTaskThreshold``,
        /// measured from its first begin); reported once per token, group or counter, at a sweep,
        /// on the main thread, to the handler of the manager that holds it. ``task`` and
        /// ``scopePath`` say which task and where; the description says what would end it.
        case staleTask(age: TimeInterval)
        /// A setting was given a value it cannot take (negative, zero or not a number, infinite
        /// where only the stale-task threshold takes `.infinity`, or a check interval below
        /// 0.01 s); the stated replacement was used instead.
        case invalidSetting(name: String, replacement: TimeInterval?)
        /// The main queue has never run, five seconds after the process's first manager on
        /// ``MainQueueScheduler`` was made, while the manager had `openTasks` tasks open: the
        /// process never services it (a synchronous `main`), so outputs are never told and the
        /// sweep never runs. Reported once per manager, from a global queue; the label is
        /// `"main queue"`. A main queue that ran once, then is blocked, is not watched.
        case mainQueueNotRunning(openTasks: Int)
        /// A SwiftUI `networkActivityOverlay` given no manager found no `networkActivityScope`
        /// around it (outside every scope, or written below the `networkActivityScope` modifier
        /// it meant), so it follows ``NetworkIndicatorManager/shared``, every load of the app.
        /// Reported once per process, in debug builds only, to `.shared`'s handler; the label is
        /// the overlay's title. Pass `.shared` to the overlay to mean it.
        case overlayFollowsShared
    }

    /// What went wrong.
    public let kind: Kind
    /// The label of the task or token concerned, as ``NetworkActivitySnapshot/Activity/label``
    /// names it (without a label of yours: a weak token's type, an opaque token's call site).
    /// A pop without a push has no task: it reads `popNetworkActivity()`, the call that went
    /// wrong, where a snapshot names the push counter `pushNetworkActivity()`.
    public let label: String
    /// For ``Kind/staleTask(age:)``: the stuck task as ``NetworkIndicatorManager/activitySnapshot()``
    /// shows it (label, kind, count, age, whether its token is alive); `nil` for every other kind.
    public let task: NetworkActivitySnapshot.Activity?
    /// For ``Kind/staleTask(age:)``: the labels of the scopes from the root manager down to the
    /// manager that holds the task (`["Feed", "Detail"]`); empty for the root's own tasks and for
    /// every other kind.
    public let scopePath: [String]
    /// For a stale task: what keeps it open and what would end it, in words.
    let keptOpenBy: String

    /// For a stale task: the scope it is in and where it began, as the description says them.
    private var whereTheTaskIs: String {
        var words = scopePath.isEmpty ? "" : " in scope \(scopePath.joined(separator: " > "))"
        if let site = task?.callSite, site != label { words += ", begun at \(site)," }
        return words
    }

    /// Creates a diagnostic; only the manager creates them.
    init(kind: Kind, label: String) {
        self.init(kind: kind, label: label, task: nil, scopePath: [], keptOpenBy: "")
    }

    /// The report of `task`, open longer than the threshold in its manager at `scopePath`.
    init(staleTask task: NetworkActivitySnapshot.Activity, scopePath: [String], keptOpenBy: String) {
        self.init(
            kind: .staleTask(age: task.age),
            label: task.label,
            task: task,
            scopePath: scopePath,
            keptOpenBy: keptOpenBy
        )
    }

    private init(
        kind: Kind,
        label: String,
        task: NetworkActivitySnapshot.Activity?,
        scopePath: [String],
        keptOpenBy: String
    ) {
        self.kind = kind
        self.label = label
        self.task = task
        self.scopePath = scopePath
        self.keptOpenBy = keptOpenBy
    }

    /// One line describing the problem, suitable for a log.
    public var description: String {
        switch kind {
        case .unknownFinish:
            "finishedNetworkTask(forToken:) for '\(label)', which has no open task (never begun, already finished, or ended by a reset); ignored"
        case .finishAfterTokenDeath:
            "finishedNetworkTask(forToken:) found the tasks of '\(label)', whose token at that address was already deallocated or in its deinit; its tasks ended (finish before releasing a token)"
        case .popWithoutPush:
            "popNetworkActivity() with no push outstanding; ignored"
        case .groupFinishWithoutStart:
            "operationFinished() or operationStoppedCounting() on group '\(label)' with no operation outstanding; ignored"
        case .staleTask(let age):
            "task '\(label)'\(whereTheTaskIs) has been active for \(Int(age.rounded())) s: \(keptOpenBy)"
        case .invalidSetting(let name, let replacement):
            "\(name) must be \(Self.rule(of: name)); using \(replacement.map { "\($0)" } ?? "nil (the parent manager's threshold, or a root's default)")"
        case .overlayFollowsShared:
            "networkActivityOverlay '\(label)' names no manager and is in no networkActivityScope (or sits below the modifier that declares it), so it follows .shared; move it above networkActivityScope, or pass .shared to mean it"
        case .mainQueueNotRunning(let openTasks):
            "the main queue has not run for \(Int(MainQueueWatchdog.gracePeriod)) s while \(openTasks) task(s) are open, so no output is told and no task is swept; call dispatchMain() or RunLoop.main.run() at the end of a synchronous main, or make main async"
        }
    }
}

extension NetworkIndicatorDiagnostic {
    /// What a value of the setting `name` must be (``NetworkIndicatorSettings``), for its report.
    private static func rule(of name: String) -> String {
        switch name {
        case "completionCheckInterval":
            "a finite number of seconds, at least \(NetworkIndicatorSettings.minimumCompletionCheckInterval)"
        case "staleTaskThreshold": "a finite number of seconds above zero, or infinity (off)"
        default: "a finite number of seconds, not negative"
        }
    }
}

/// Receives a manager's diagnostics, on the thread that made the offending call (misuse), on
/// the main thread (stale tasks), or on a global queue (a main queue that never runs). It must
/// not block; it may call back into the manager.
public typealias NetworkIndicatorDiagnosticsHandler = @Sendable (NetworkIndicatorDiagnostic) -> Void

extension NetworkIndicatorDiagnostic {
    /// The handler a manager starts with: in debug builds of the package, one line on standard
    /// error per diagnostic, prefixed with `NetworkIndicator:`; in release builds, nothing. While
    /// a ``TerminalSpinnerOutput`` spins on standard error, each line is printed above it (as
    /// its ``TerminalSpinnerOutput/printLine(_:)`` does), never through its line. A line that
    /// cannot be written (standard error closed, `mytool 2>&-`) is lost; the tool runs on.
    ///
    /// Identical diagnostics are coalesced: the first is written at once, and those that follow
    /// within a second are counted and summed up in one line when that second is over
    /// (`NetworkIndicator: … repeated 999 times in 1 s: …`).
    public static let standardErrorHandler = NetworkIndicatorManager.diagnosticsHandler(writingTo: .standardError)
}

extension NetworkIndicatorManager {
    /// The default handler's behaviour, writing to `handle` instead of standard error (so that
    /// tests never swap the process's file descriptor 2).
    static func diagnosticsHandler(writingTo handle: FileHandle) -> NetworkIndicatorDiagnosticsHandler {
        #if DEBUG
        let descriptor = handle.fileDescriptor
        let coalescer = DiagnosticsCoalescer { text in SpinningTerminals.write(line: text, to: descriptor) }
        return { diagnostic in coalescer.report(diagnostic) }
        #else
        return { _ in }
        #endif
    }
}
