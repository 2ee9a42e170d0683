public import Foundation

extension NetworkIndicatorManager {
    /// Seconds between sweeps for dead or finished tokens. Default `1.0`.
    ///
    /// The sweep runs on the main queue only while tokens passed to
    /// ``beganNetworkTask(withToken:label:progress:weight:)`` are tracked (or while ``staleTaskThreshold`` is set
    /// and any task is active); it stops when none are left. A new value takes effect at the
    /// next main-queue hop. Settable from any thread. A value that is not a positive finite
    /// number is replaced by `1.0` and reported to ``diagnosticsHandler``.
    public var completionCheckInterval: TimeInterval {
        get { driver.settings.completionCheckInterval }
        set {
            let value = validated(newValue, name: "completionCheckInterval", allowsZero: false, replacement: 1)
            driver.updateSettings { $0.completionCheckInterval = value }
        }
    }

    /// Seconds a task must stay active before the indicator appears. Default `0`: show at once.
    ///
    /// Users read a spinner that appears late as a broken indicator, so the default shows at
    /// once; raise it (AFNetworking used 1 s, Alamofire 1 s) only to hide the spinner for
    /// requests you know to be very short. A task that starts and ends inside the delay never
    /// shows the indicator. A new value applies to the next delay; a running one is not
    /// restarted. Settable from any thread; a negative or non-finite value is replaced by `0`
    /// and reported.
    public var startDelay: TimeInterval {
        get { driver.settings.startDelay }
        set {
            let value = validated(newValue, name: "startDelay", allowsZero: true, replacement: 0)
            driver.updateSettings { $0.startDelay = value }
        }
    }

    /// Seconds the indicator stays after the last task ends. Default `0.2`.
    ///
    /// Back-to-back requests (a list page, then its images) would otherwise flash the indicator
    /// off and on; a task that begins during the wait cancels the hide. 0.2 s is long enough to
    /// bridge such gaps and short enough that nobody sees a spinner for finished work.
    /// A new value applies to the next delay; a running one is not restarted. Settable from any
    /// thread; a negative or non-finite value is replaced by `0` and reported.
    public var completionDelay: TimeInterval {
        get { driver.settings.completionDelay }
        set {
            let value = validated(newValue, name: "completionDelay", allowsZero: true, replacement: 0)
            driver.updateSettings { $0.completionDelay = value }
        }
    }

    /// Once shown, the indicator stays at least this many seconds. Default `0`.
    ///
    /// An in-app overlay that flashes for a request that took 30 ms reads as a glitch; with,
    /// say, `0.5`, the overlay that appears stays long enough to be seen. The indicator hides
    /// at the later of (the last task's end + ``completionDelay``) and (when it appeared + this
    /// duration); a task that begins before then keeps it, as during the completion delay.
    /// Disabling the manager (``isEnabled``) still hides it at once. A new value applies from
    /// the next time the indicator would hide. Settable from any thread; a negative or
    /// non-finite value is replaced by `0` and reported.
    public var minimumVisibleDuration: TimeInterval {
        get { driver.settings.minimumVisibleDuration }
        set {
            let value = validated(newValue, name: "minimumVisibleDuration", allowsZero: true, replacement: 0)
            driver.updateSettings { $0.minimumVisibleDuration = value }
        }
    }

    /// Whether the manager drives its outputs. Default `true`.
    ///
    /// Disabling hides the indicator (outputs and streams are told `false`) and stops the
    /// visibility policy, but tasks are still counted (outputs that receive counts still get
    /// them), so that enabling again shows the truth at once, without the start delay.
    /// Settable from any thread; applied at the next main-queue hop.
    public var isEnabled: Bool {
        get { driver.settings.isEnabled }
        set { driver.updateSettings { $0.isEnabled = newValue } }
    }

    /// Tasks active for longer than this many seconds are reported once, with their label, to
    /// ``diagnosticsHandler`` as ``NetworkIndicatorDiagnostic/Kind/staleTask(age:)``. Default
    /// `nil` (off).
    ///
    /// The check runs at each sweep, so it is as precise as ``completionCheckInterval``; while
    /// a threshold is set the sweep runs whenever any task is active. Settable from any thread;
    /// a value that is not a positive finite number is replaced by `nil` and reported.
    public var staleTaskThreshold: TimeInterval? {
        get { driver.settings.staleTaskThreshold }
        set {
            let value = newValue.flatMap { threshold -> TimeInterval? in
                if isValid(threshold, allowsZero: false) { return threshold }
                let name = "staleTaskThreshold"
                driver.report(.invalidSetting(name: name, replacement: nil), label: name)
                return nil
            }
            driver.updateSettings { $0.staleTaskThreshold = value }
        }
    }

    /// Receives misuse reports and stale-task reports (see ``NetworkIndicatorDiagnostic``).
    ///
    /// Defaults to ``defaultDiagnosticsHandler`` (a line on standard error in debug builds).
    /// Called without any lock held, on the thread of the offending call or, for stale tasks, on
    /// the main thread; it may call back into the manager. Settable from any thread.
    public var diagnosticsHandler: NetworkIndicatorDiagnosticsHandler {
        get { driver.diagnosticsHandler }
        set { driver.replaceDiagnosticsHandler(with: newValue) }
    }

    /// `value` if it is a finite number of seconds, positive (or zero, when `allowsZero`);
    /// otherwise `replacement`, and the misuse is reported.
    private func validated(
        _ value: TimeInterval,
        name: String,
        allowsZero: Bool,
        replacement: TimeInterval
    ) -> TimeInterval {
        if isValid(value, allowsZero: allowsZero) { return value }
        driver.report(.invalidSetting(name: name, replacement: replacement), label: name)
        return replacement
    }

    /// Whether `value` is a finite number of seconds, positive (or zero, when `allowsZero`).
    private func isValid(_ value: TimeInterval, allowsZero: Bool) -> Bool {
        value.isFinite && (value > 0 || (allowsZero && value == 0))
    }
}
