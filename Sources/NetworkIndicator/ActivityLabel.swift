import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The names the snapshot and the diagnostics give to tasks begun without a label.
enum ActivityLabel {
    /// The push/pop counter's label.
    static let push = "pushNetworkActivity()"

    /// The name of a scope made without a label, in snapshots and stale reports.
    static let unlabelledScope = "child NetworkIndicatorManager"

    /// A token's default label: the name of its type.
    static func typeName(of object: AnyObject) -> String {
        String(describing: type(of: object))
    }

    /// The label of `entry`: `label`, the one given at its first begin, or a default for its
    /// kind (`object` is its live token, if any).
    static func of(_ entry: borrowing TaskRegistry.Entry, label: String?, object: AnyObject?) -> String {
        if let label { return label }
        switch entry.kind {
        case .token, .completionReportingToken:
            return object.map(typeName(of:)) ?? "deallocated token"
        case .opaqueToken, .load, .iteration, .body:
            return entry.site.name ?? "NetworkActivityToken"
        case .group:
            return "NetworkActivityGroup"
        }
    }

    /// What keeps a stale task of `kind` open, and what would end it, for its report; `object`
    /// is its live token, if any.
    static func whatKeepsOpen(_ kind: TaskKind, object: AnyObject?) -> String {
        switch kind {
        case .token, .completionReportingToken:
            if let task = object as? URLSessionTask {
                return
                    "a \(typeName(of: task)) not completed keeps it open; it ends when the task completes or is cancelled"
            }
            let type = object.map(typeName(of:)) ?? "unknown type"
            let report = kind == .completionReportingToken ? ", report isNetworkActivityFinished" : ""
            return
                "a weak token of type \(type) still alive keeps it open; let go of it\(report) or call finishedNetworkTask(forToken:)"
        case .opaqueToken:
            return
                "an opaque token still held keeps it open; release the NetworkActivityToken or call finishedNetworkTask(forToken:)"
        case .load:
            return
                "a URLSession load still waiting for its answer keeps it open; it ends when the call returns or throws (cancel its Task to give up)"
        case .iteration:
            return
                "a tracked async sequence still being iterated keeps it open; it ends when its loop ends or its iterator is released (cancel its Task, or its manager's cancelNetworkTasks())"
        case .body:
            return
                "a withNetworkActivity body still running keeps it open (a SwiftUI refresh or networkActivityTask is one); it ends when the body returns or throws, or when its Task is cancelled"
        case .group:
            return
                "a group operation not finished keeps it open; call operationFinished() or release the group (a NetworkActivityMiddleware request is one: it ends when its response body is read to the end or let go, or when its Task or cancelNetworkTasks() cancels it)"
        }
    }

    /// What keeps the push counter open, for its stale report.
    static let pushKeptOpen =
        "a push without its pop keeps it open; call popNetworkActivity(), or resetNetworkActivity() to end every push"
}
