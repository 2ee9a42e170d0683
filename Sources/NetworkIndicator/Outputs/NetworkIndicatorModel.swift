#if canImport(Observation)
public import Observation

/// The indicator's state as an `@Observable` model, for SwiftUI or any observer
/// (`withObservationTracking` works on every platform, Linux included).
///
/// ```swift
/// let model = NetworkIndicatorModel(manager: .shared)   // attaches itself as an output
///
/// struct ContentView: View {
///     let model: NetworkIndicatorModel
///     var body: some View {
///         List { … }.networkActivityOverlay(model)
///     }
/// }
/// ```
///
/// Updated on the main actor, coalesced; its ``activeTaskCount`` may skip intermediate values
/// and lags ``NetworkIndicatorManager/activeTaskCount`` by a main-queue hop. The manager retains
/// the model until it is removed with ``NetworkIndicatorManager/removeOutput(_:)``.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@MainActor
@Observable
public final class NetworkIndicatorModel: NetworkIndicatorOutput {
    /// Whether the indicator should be shown.
    public private(set) var isVisible = false
    /// The number of active tasks at the last main-queue hop.
    public private(set) var activeTaskCount = 0

    /// Creates a detached model; attach it with ``NetworkIndicatorManager/addOutput(_:)``.
    public init() {}

    /// Creates a model and attaches it to `manager`; it takes the current values at once.
    public convenience init(manager: NetworkIndicatorManager) {
        self.init()
        manager.addOutput(self)
    }

    /// The model shows the task count, so it asks for it.
    public var receivesActiveTaskCount: Bool { true }

    /// Updates ``isVisible``.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        if self.isVisible != isVisible { self.isVisible = isVisible }
    }

    /// Updates ``activeTaskCount``.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        if self.activeTaskCount != activeTaskCount { self.activeTaskCount = activeTaskCount }
    }
}
#endif
