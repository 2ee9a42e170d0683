/// A task that began or ended, as an output that watches tasks hears of it (see
/// ``NetworkActivityTaskEventOutput``): one event when a token, group, load or the push counter
/// opens its first task, and one when its last task ends. More tasks of the same token (a
/// second begin, a group's next operation, a second push) are counted in
/// ``NetworkActivitySnapshot/Activity/taskCount``, not told. A value: `Sendable`, made on the
/// main actor after the manager's lock.
///
/// ```
/// began opaque token feed page 2 at FeedViewModel.swift:48 in Feed
/// ended weak token FeedLoader after 2.4 s, swept; began at FeedViewModel.swift:31 in Feed
/// ```
public enum NetworkActivityTaskEvent: Sendable, Equatable, CustomStringConvertible {
    /// A task began: the activity as a snapshot would show it then (its ``NetworkActivitySnapshot/Activity/age``
    /// is 0), an `id` its end carries too, and the labels of the scopes from the root manager
    /// down to the task's own (empty for the root's tasks), as diagnostics name them.
    case began(NetworkActivitySnapshot.Activity, id: UInt64, scopePath: [String])
    /// The task's last task ended, `ending`; the activity's ``NetworkActivitySnapshot/Activity/age``
    /// is its duration. A task that began before anything watched ends with an `id` of its own.
    case ended(NetworkActivitySnapshot.Activity, id: UInt64, scopePath: [String], ending: Ending)

    /// How a task ended.
    public enum Ending: String, Sendable, Equatable {
        /// ``NetworkIndicatorManager/finishedNetworkTask(forToken:)-(Object)``, a pop, a group's operation
        /// finished, a load or `URLSessionTask` done, a completion-reporting token that said so.
        /// Also a group's operations ended all at once by its own
        /// ``NetworkActivityGroup/cancelOperations()`` or by its release: ``cancelled`` is only
        /// a manager's cancel.
        case finished
        /// Its ``NetworkActivityToken`` was released (or its scoped work ended).
        case released
        /// Its weak token was found deallocated.
        case swept
        /// ``NetworkIndicatorManager/cancelNetworkTasks()`` cancelled it.
        case cancelled
        /// ``NetworkIndicatorManager/resetNetworkActivity()`` ended it.
        case reset
        /// Its manager was deallocated with the task open.
        case managerGone
    }

    /// One line: "began" or "ended", the task in words, how long it ran and how it ended, where
    /// it began, and the scopes it is in.
    public var description: String {
        switch self {
        case .began(let activity, _, let scopePath):
            "began \(Self.name(activity))\(Self.site(activity, " at "))\(Self.scope(scopePath))"
        case .ended(let activity, _, let scopePath, let ending):
            "ended \(Self.name(activity)) after \((activity.age * 10).rounded() / 10) s, \(ending.rawValue)"
                + "\(Self.site(activity, "; began at "))\(Self.scope(scopePath))"
        }
    }

    private static func name(_ activity: NetworkActivitySnapshot.Activity) -> String {
        activity.kind == .counter ? activity.kind.words : "\(activity.kind.words) \(activity.label)"
    }

    /// Where the task began, unless that is its name already.
    private static func site(_ activity: NetworkActivitySnapshot.Activity, _ prefix: String) -> String {
        activity.callSite.map { $0 == activity.label ? "" : prefix + $0 } ?? ""
    }

    private static func scope(_ path: [String]) -> String {
        path.isEmpty ? "" : " in \(path.joined(separator: " > "))"
    }
}

/// An output that also hears each task begin and end (``NetworkActivityTaskEvent``): for tools
/// that answer "what keeps my spinner on?" (a log, an inspector, Instruments).
///
/// Attached with ``NetworkIndicatorManager/addOutput(_:)``, it hears the tasks of its manager and
/// of every scope below it, batched: one call per main-queue hop, in the order they happened.
/// While no such output is attached to a manager or an ancestor, nothing is recorded: the
/// manager's begins and finishes pay one comparison each. Main actor only, as every output.
@MainActor
public protocol NetworkActivityTaskEventOutput: NetworkIndicatorOutput {
    /// Tasks began or ended since the last call, oldest first. Called on the main actor, after
    /// the hop that tells the visibility and count; may call back into the manager.
    func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent])
}
