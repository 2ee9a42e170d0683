#if canImport(Observation)
public import Observation

/// The indicator's state as an `@Observable` model, for SwiftUI or any observer
/// (`withObservationTracking` works on every platform, Linux included).
///
/// ```swift
/// struct ContentView: View {
///     @State private var model = NetworkIndicatorModel(manager: .shared)  // attaches itself
///     var body: some View {
///         List { … }.navigationTitle(model.isVisible ? "Updating…" : "Feed")
///     }
/// }
/// ```
///
/// Updated on the main actor, coalesced; its ``activeTaskCount`` may skip intermediate values
/// and lags ``NetworkIndicatorManager/activeTaskCount`` by a main-queue hop. The manager holds the
/// model weakly: it is told as long as its owner (a view's `@State`, a view model) keeps it,
/// and a model created on every view rebuild is simply freed.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class NetworkIndicatorModel: NetworkIndicatorOutput {
    /// Whether the indicator should be shown.
    public private(set) var isVisible = false
    /// The number of active tasks at the last main-queue hop.
    public private(set) var activeTaskCount = 0
    /// ``NetworkIndicatorManager/progressSnapshot()`` at the last reading (at most ten a second,
    /// while tasks begun with a `Progress` run): a value for a determinate bar, or `nil` for an
    /// indeterminate spinner.
    public private(set) var fractionCompleted: Double?
    /// The manager the model is attached to: it follows one at a time.
    @ObservationIgnored private weak var attached: NetworkIndicatorManager?

    /// Creates a detached model; attach it with ``NetworkIndicatorManager/addOutput(_:)``. It
    /// follows one manager at a time: added to a second, it leaves the first.
    public init() {}

    /// Creates a model and attaches it to `manager`; it takes the current values at once.
    public convenience init(manager: NetworkIndicatorManager) {
        self.init()
        manager.addOutput(self)
    }

    /// The model shows the task count, so it asks for it.
    public var receivesActiveTaskCount: Bool { true }

    /// The model shows the fraction, so it asks for it.
    public var receivesFractionCompleted: Bool { true }

    /// Updates ``isVisible``.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        if self.isVisible != isVisible { self.isVisible = isVisible }
    }

    /// Updates ``activeTaskCount``.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        if self.activeTaskCount != activeTaskCount { self.activeTaskCount = activeTaskCount }
    }

    /// Updates ``fractionCompleted``.
    public func networkIndicatorFractionCompletedDidChange(_ fractionCompleted: Double?) {
        if self.fractionCompleted != fractionCompleted { self.fractionCompleted = fractionCompleted }
    }
}
/// The model follows one manager at a time: added to another, it leaves the first, so that two
/// managers' counts never mix in it.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
extension NetworkIndicatorModel: ManagerAwareOutput {
    package func outputAdded(to manager: NetworkIndicatorManager) {
        if let previous = attached, previous !== manager { previous.removeOutput(self) }
        guard attached !== manager else { return }
        attached = manager
    }

    package func outputRemoved(from manager: NetworkIndicatorManager) {
        guard attached === manager else { return }
        attached = nil
    }

    package var followedManager: NetworkIndicatorManager? { attached }
}
#endif
