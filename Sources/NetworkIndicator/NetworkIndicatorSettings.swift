public import Foundation

/// How a manager shows its indicator and checks its tasks: its delays, whether it drives its
/// outputs, and its sweep. Read and set as one value, ``NetworkIndicatorManager/settings``.
///
/// ```swift
/// NetworkIndicatorManager.shared.settings.startDelay = 0.5
/// let screen = NetworkIndicatorManager(parent: .shared, label: "Feed")
/// screen.settings = NetworkIndicatorSettings(minimumVisibleDuration: 0.5)
/// ```
///
/// A plain value: making and changing one touches no manager. A manager checks it when it is
/// set (see ``NetworkIndicatorManager/settings``). <doc:VisibilityPolicy> shows how the three
/// delays shape what users see.
public struct NetworkIndicatorSettings: Sendable, Equatable {
    /// Seconds a task must stay active before the indicator appears. Default `0`: show at once.
    ///
    /// Users read a spinner that appears late as a broken indicator, so the default shows at
    /// once; raise it (AFNetworking used 1 s, Alamofire 1 s) only to hide the spinner for
    /// requests you know to be very short. A task that starts and ends inside the delay never
    /// shows the indicator. A new value applies to the next delay; a running one is not
    /// restarted. A negative or non-finite value is replaced by `0` and reported.
    public var startDelay: TimeInterval

    /// Seconds the indicator stays after the last task ends. Default `0.2`.
    ///
    /// Back-to-back requests (a list page, then its images) would otherwise flash the indicator
    /// off and on; a task that begins during the wait cancels the hide. 0.2 s is long enough to
    /// bridge such gaps and short enough that nobody sees a spinner for finished work. A new
    /// value applies to the next delay; a running one is not restarted. A negative or
    /// non-finite value is replaced by `0` and reported.
    public var completionDelay: TimeInterval

    /// Once shown, the indicator stays at least this many seconds. Default `0`.
    ///
    /// An in-app overlay that flashes for a request that took 30 ms reads as a glitch; with,
    /// say, `0.5`, the overlay that appears stays long enough to be seen. The indicator hides
    /// at the later of (the last task's end + ``completionDelay``) and (when it appeared + this
    /// duration); a task that begins before then keeps it, as during the completion delay.
    /// Disabling the manager (``isEnabled``) still hides it at once. A new value applies from
    /// the next time the indicator would hide. A negative or non-finite value is replaced by
    /// `0` and reported.
    public var minimumVisibleDuration: TimeInterval

    /// Whether the manager drives its outputs. Default `true`.
    ///
    /// Disabling hides the indicator (outputs and streams are told `false`) and stops the
    /// visibility policy, but tasks are still counted (outputs that receive counts still get
    /// them), so that enabling again shows the truth at once, without the start delay.
    public var isEnabled: Bool

    /// Seconds between sweeps for dead or finished tokens. Default `1.0`.
    ///
    /// The sweep runs on the main queue only while tokens passed to
    /// ``NetworkIndicatorManager/beganNetworkTask(withToken:label:progress:weight:file:line:)-(Object,_,_,_,_,_)`` are tracked
    /// (or while ``staleTaskThreshold`` is set and any task is active); it stops when none are
    /// left. A value that is not a positive finite number is replaced by `1.0` and reported; one
    /// below 0.01 s (a sweep more often than 100 times a second, which shows nothing sooner and
    /// keeps the main queue busy) is raised to 0.01 s and reported.
    public var completionCheckInterval: TimeInterval

    /// The least ``completionCheckInterval`` in force.
    static let minimumCompletionCheckInterval: TimeInterval = 0.01

    /// Tasks active for longer than this many seconds are reported once to
    /// ``NetworkIndicatorManager/diagnosticsHandler`` as
    /// ``NetworkIndicatorDiagnostic/Kind/staleTask(age:)``, with the scope they are in and what
    /// would end them (see <doc:FindingAStuckTask>).
    ///
    /// A setting of the tree. `nil`, the default, means the threshold in force in the parent
    /// manager, so one value set on ``NetworkIndicatorManager/shared`` reaches every scope below
    /// it, those SwiftUI makes included. A root manager that sets none uses 60 s in debug builds
    /// when it runs on ``MainQueueScheduler`` (an app's managers), and nothing in release builds
    /// or on another scheduler (a test's manual scheduler: no timer appears that the test did not
    /// ask for). `.infinity` turns the check off for this manager and the scopes below it that
    /// set none. Reading the property gives what was set here, not what is in force.
    ///
    /// The check runs at each sweep, so it is as precise as ``completionCheckInterval``; while
    /// a threshold is in force the sweep runs whenever a task is active. Zero, a negative value
    /// or NaN is replaced by `nil` and reported.
    public var staleTaskThreshold: TimeInterval?

    /// Settings with the given values; each defaults to the manager's default.
    public init(
        startDelay: TimeInterval = 0,
        completionDelay: TimeInterval = 0.2,
        minimumVisibleDuration: TimeInterval = 0,
        isEnabled: Bool = true,
        completionCheckInterval: TimeInterval = 1,
        staleTaskThreshold: TimeInterval? = nil
    ) {
        self.startDelay = startDelay
        self.completionDelay = completionDelay
        self.minimumVisibleDuration = minimumVisibleDuration
        self.isEnabled = isEnabled
        self.completionCheckInterval = completionCheckInterval
        self.staleTaskThreshold = staleTaskThreshold
    }

    /// These settings with every invalid value replaced, and a report for each to `report`.
    func validated(reporting report: (NetworkIndicatorDiagnostic.Kind, String) -> Void) -> Self {
        var valid = self
        // An invalid value becomes `replacement`; a valid one below `minimum`, `minimum`.
        func check(
            _ value: inout TimeInterval,
            _ name: String,
            allowsZero: Bool,
            replacement: TimeInterval,
            minimum: TimeInterval = 0
        ) {
            let kept = Self.isValid(value, allowsZero: allowsZero) ? max(value, minimum) : replacement
            guard kept != value else { return }
            report(.invalidSetting(name: name, replacement: kept), name)
            value = kept
        }
        check(&valid.startDelay, "startDelay", allowsZero: true, replacement: 0)
        check(&valid.completionDelay, "completionDelay", allowsZero: true, replacement: 0)
        check(&valid.minimumVisibleDuration, "minimumVisibleDuration", allowsZero: true, replacement: 0)
        check(
            &valid.completionCheckInterval,
            "completionCheckInterval",
            allowsZero: false,
            replacement: 1,
            minimum: Self.minimumCompletionCheckInterval
        )
        if let threshold = staleTaskThreshold, threshold != .infinity, !Self.isValid(threshold, allowsZero: false) {
            report(.invalidSetting(name: "staleTaskThreshold", replacement: nil), "staleTaskThreshold")
            valid.staleTaskThreshold = nil
        }
        return valid
    }

    /// Whether `value` is a finite number of seconds, positive (or zero, when `allowsZero`).
    private static func isValid(_ value: TimeInterval, allowsZero: Bool) -> Bool {
        value.isFinite && (value > 0 || (allowsZero && value == 0))
    }
}
