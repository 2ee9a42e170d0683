public import Logging
public import NetworkIndicator

/// Logs every task's begin and end to a swift-log `Logger`, at `.trace`, with metadata: attach
/// it to the app's manager to log every scope's tasks.
///
/// ```swift
/// let taskLog = NetworkActivityLogOutput(logger: Logger(label: "network-activity"))
/// NetworkIndicatorManager.shared.addOutput(taskLog)   // keep `taskLog`: outputs are held weakly
/// NetworkIndicatorManager.shared.diagnosticsHandler = Logger(label: "network-activity").networkIndicatorDiagnosticsHandler
/// ```
///
/// Each line is the event in words (`ended weak token FeedLoader after 2.4 s, swept; began at
/// FeedViewModel.swift:31 in Feed`), with the metadata `task.label`, `task.kind`, `task.id`,
/// `task.scope` (the scope path, `Feed > Detail`, when there is one), `task.call_site` (when
/// known) and, for an end, `task.duration` (seconds) and `task.ending`. The indicator's own
/// showing and hiding is logged at `.trace` too. Nothing is logged while the logger's level is
/// above `.trace`, but the manager records the events for as long as the output is attached:
/// attach it only where you want them. Main actor only, as every output.
@MainActor
public final class NetworkActivityLogOutput: NetworkActivityTaskEventOutput {
    private let logger: Logger

    /// An output that logs to `logger`.
    public init(logger: Logger) {
        self.logger = logger
    }

    /// Logs the indicator showing or hiding, at `.trace`.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        logger.trace(isVisible ? "network activity indicator shown" : "network activity indicator hidden")
    }

    /// Logs each event at `.trace`, with its metadata, in order.
    public func networkIndicatorTasksDidChange(_ events: [NetworkActivityTaskEvent]) {
        guard logger.logLevel <= .trace else { return }
        for event in events {
            logger.trace("\(event.description)", metadata: Self.metadata(of: event))
        }
    }

    /// The metadata of one event.
    static func metadata(of event: NetworkActivityTaskEvent) -> Logger.Metadata {
        switch event {
        case .began(let activity, let id, let scopePath):
            return metadata(activity, id: id, scopePath: scopePath)
        case .ended(let activity, let id, let scopePath, let ending):
            var metadata = metadata(activity, id: id, scopePath: scopePath)
            metadata["task.duration"] = "\(activity.age)"
            metadata["task.ending"] = "\(ending.rawValue)"
            return metadata
        }
    }

    static func metadata(
        _ activity: NetworkActivitySnapshot.Activity,
        id: UInt64,
        scopePath: [String]
    ) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "task.label": "\(activity.label)",
            "task.kind": "\(activity.kind.rawValue)",
            "task.id": "\(id)",
        ]
        if !scopePath.isEmpty { metadata["task.scope"] = "\(scopePath.joined(separator: " > "))" }
        if let callSite = activity.callSite { metadata["task.call_site"] = "\(callSite)" }
        return metadata
    }
}
