public import Logging
public import NetworkIndicator

extension NetworkIndicatorDiagnostic {
    /// The level this diagnostic is logged at: `.warning` for a stuck task
    /// (``NetworkIndicatorDiagnostic/Kind/staleTask(age:)``) and for a main queue that never
    /// runs, `.error` for misuse (a finish without a begin, a pop without a push, …), `.notice`
    /// for an invalid setting that was replaced and for an overlay that follows `.shared`.
    public var logLevel: Logger.Level {
        switch kind {
        case .staleTask, .mainQueueNotRunning: .warning
        case .unknownFinish, .finishAfterTokenDeath, .popWithoutPush, .groupFinishWithoutStart: .error
        case .invalidSetting, .overlayFollowsShared: .notice
        }
    }
}

extension Logger {
    /// A diagnostics handler that logs each report to this logger at its
    /// ``NetworkIndicator/NetworkIndicatorDiagnostic/logLevel``, with the metadata `task.label`
    /// and, when the report is about an open task, `task.kind`, `task.scope`, `task.call_site`
    /// and `task.age` (seconds): set it as a manager's `diagnosticsHandler`. Called on whatever
    /// thread reports (the handler is `Sendable`, and `Logger` is).
    public var networkIndicatorDiagnosticsHandler: NetworkIndicatorDiagnosticsHandler {
        { [self] diagnostic in
            var metadata: Logger.Metadata = ["task.label": "\(diagnostic.label)"]
            if let task = diagnostic.task {
                metadata["task.kind"] = "\(task.kind.rawValue)"
                metadata["task.age"] = "\(task.age)"
                if let callSite = task.callSite { metadata["task.call_site"] = "\(callSite)" }
            }
            if !diagnostic.scopePath.isEmpty {
                metadata["task.scope"] = "\(diagnostic.scopePath.joined(separator: " > "))"
            }
            log(level: diagnostic.logLevel, "\(diagnostic.description)", metadata: metadata)
        }
    }
}
