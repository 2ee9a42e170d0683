extension NetworkIndicatorManager {
    /// The manager's delays, whether it drives its outputs, and its sweep (see
    /// ``NetworkIndicatorSettings``).
    ///
    /// ```swift
    /// NetworkIndicatorManager.shared.settings.minimumVisibleDuration = 0.5
    /// ```
    ///
    /// Readable and settable from any thread; a new value applies at the next main-queue hop.
    /// Each value that is not a valid number of seconds is replaced (as each setting says) and
    /// reported to ``diagnosticsHandler``. Each read and each set is atomic, but a change of one
    /// setting (`settings.startDelay = 1`) reads the whole value and writes it back: two threads
    /// that change two settings at the same moment may lose one change. Set them from one place,
    /// usually at launch.
    public var settings: NetworkIndicatorSettings {
        get { driver.read { $0.schedule.settings } ?? NetworkIndicatorSettings() }
        set {
            let valid = newValue.validated { kind, name in driver.report(kind, label: name) }
            driver.updateSettings { $0 = valid }
        }
    }

    /// Receives misuse reports and stale-task reports (see ``NetworkIndicatorDiagnostic``).
    ///
    /// Defaults to ``NetworkIndicatorDiagnostic/standardErrorHandler`` (a line on standard
    /// error in debug builds); a scope's follows its parent's until it is set. Called without
    /// any lock held, on the thread of the offending call or, for stale tasks, on the main
    /// thread; it may call back into the manager. Settable from any thread.
    public var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler {
        get { driver.read { $0.diagnosticsHandler } ?? IndicatorTree.silent }
        set { driver.replaceDiagnosticsHandler(with: newValue) }
    }
}
