/// Something that shows the network activity indicator: a spinner, a status bar, a model.
///
/// A manager tells its outputs, on the main actor, when the indicator should appear or
/// disappear (after its start and completion delays, coalesced: only real changes are told).
/// Attach outputs with ``NetworkIndicatorManager/addOutput(_:)``; several may be attached at once
/// and each is told the current visibility as soon as it is added.
///
/// ```swift
/// @MainActor final class SpinnerOutput: NetworkIndicatorOutput {
///     let spinner: MySpinnerView
///     init(spinner: MySpinnerView) { self.spinner = spinner }
///     func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
///         isVisible ? spinner.startAnimating() : spinner.stopAnimating()
///     }
/// }
/// ```
///
/// Callbacks may call back into the manager (begin, finish, read the count, add or remove
/// outputs): the manager holds no lock while calling them.
@MainActor
public protocol NetworkIndicatorOutput: AnyObject, Sendable {
    /// The indicator should now be visible (`true`) or hidden (`false`). Called on the main
    /// actor, only when the value changes, and once with the current value when the output is
    /// added.
    func networkIndicatorVisibilityDidChange(_ isVisible: Bool)

    /// Whether the output also wants ``networkIndicatorActiveTaskCountDidChange(_:)``.
    /// Read once, when the output is added. Defaults to `false`, which spares the manager a
    /// main-queue hop for every count change.
    var receivesActiveTaskCount: Bool { get }

    /// The number of active tasks changed. Called on the main actor, coalesced (intermediate
    /// counts may be skipped), only if ``receivesActiveTaskCount`` was `true` when the output
    /// was added. Does nothing by default.
    func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int)

    /// Whether the output also wants ``networkIndicatorFractionCompletedDidChange(_:)``. Read
    /// when the output is added. Defaults to `false`.
    var receivesFractionCompleted: Bool { get }

    /// ``NetworkIndicatorManager/progressSnapshot()`` changed (or is told once, when the output
    /// is added). Called on the main actor, at most ten times a second, only while tasks begun
    /// with a `Progress` are tracked, and only if ``receivesFractionCompleted`` was `true` when
    /// the output was added. `nil` means no determinate work: show an indeterminate spinner (told
    /// too when the manager goes while a fraction was shown). Does nothing by default.
    func networkIndicatorFractionCompletedDidChange(_ fractionCompleted: Double?)
}

extension NetworkIndicatorOutput {
    /// Outputs ignore the task count unless they say otherwise.
    public var receivesActiveTaskCount: Bool { false }

    /// Ignores the count.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {}

    /// Outputs ignore progress unless they say otherwise.
    public var receivesFractionCompleted: Bool { false }

    /// Ignores the fraction.
    public func networkIndicatorFractionCompletedDidChange(_ fractionCompleted: Double?) {}
}

/// An output of the package's own that acts on being removed from its manager, which tells it
/// nothing else then (the terminal spinner stops and erases its line).
@MainActor
protocol RemovalAwareOutput: NetworkIndicatorOutput {
    /// ``NetworkIndicatorManager/removeOutput(_:)`` detached this output. Called on the main
    /// actor, after the output is detached.
    func networkIndicatorOutputWasRemoved()
}
