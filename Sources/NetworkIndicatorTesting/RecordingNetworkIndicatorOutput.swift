public import NetworkIndicator

/// An output that remembers everything it was told: for tests of code that uses the manager.
///
/// ```swift
/// let recorder = RecordingNetworkIndicatorOutput()
/// manager.addOutput(recorder)
/// // … drive the manager with a ManualNetworkIndicatorScheduler …
/// #expect(recorder.visibilityChanges == [false, true, false])
/// ```
///
/// The first recorded value is the visibility at the moment the output was added.
@MainActor
public final class RecordingNetworkIndicatorOutput: NetworkIndicatorOutput {
    /// Every visibility the output was told, in order.
    public private(set) var visibilityChanges: [Bool] = []
    /// Every task count the output was told, in order (only if created to receive counts).
    public private(set) var activeTaskCounts: [Int] = []
    /// Whether the output asks for task counts; fixed at creation.
    public let receivesActiveTaskCount: Bool

    /// The last visibility told, or `false` before any.
    public var isVisible: Bool { visibilityChanges.last ?? false }

    /// Creates an empty recorder; pass `receivesActiveTaskCount: true` to also record counts.
    public init(receivesActiveTaskCount: Bool = false) {
        self.receivesActiveTaskCount = receivesActiveTaskCount
    }

    /// Records the visibility.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        visibilityChanges.append(isVisible)
    }

    /// Records the count.
    public func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        activeTaskCounts.append(activeTaskCount)
    }
}
