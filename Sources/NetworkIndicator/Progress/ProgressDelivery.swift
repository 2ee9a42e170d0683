import Foundation

/// The main-actor side of a ``ProgressRollUp``: the owner-bound closures and the outputs that
/// receive the fraction, and what they were last told.
@MainActor
final class ProgressDelivery {
    private var observers: [ProgressObserver] = []
    private var outputs: [WeakProgressOutput] = []
    /// The value last told to everyone; a new listener is told the current value instead.
    private var lastValue: Double?

    nonisolated init() {}

    /// Whether anyone alive listens: an observer whose owner is gone, or a freed output, does not.
    var hasListeners: Bool {
        observers.contains { !$0.isFinished } || outputs.contains { $0.output != nil }
    }

    /// Brings the others up to `fraction`, then adds `observer` and tells it `fraction` at once.
    func add(_ observer: ProgressObserver, current fraction: Double?) {
        deliver(fraction)
        observers.append(observer)
        observer.tell(fraction)
    }

    /// Brings the others up to `fraction`, then adds `output` (held weakly) unless it is
    /// attached already, and tells it `fraction`.
    func add(_ output: any NetworkIndicatorOutput, current fraction: Double?) {
        deliver(fraction)
        prune()
        guard !outputs.contains(where: { $0.output === output }) else { return }
        outputs.append(WeakProgressOutput(output: output))
        output.networkIndicatorFractionCompletedDidChange(fraction)
    }

    /// Detaches `output`; freed outputs are let go at the next delivery.
    func remove(_ output: any NetworkIndicatorOutput) {
        outputs.removeAll { $0.output === output }
    }

    /// Tells every listener `fraction` if it differs from the last value told. Listeners may
    /// call back into the manager: nothing is locked here.
    func deliver(_ fraction: Double?) {
        prune()
        guard fraction != lastValue else { return }
        lastValue = fraction
        for observer in observers { observer.tell(fraction) }
        for output in outputs.compactMap(\.output) { output.networkIndicatorFractionCompletedDidChange(fraction) }
        prune()
    }

    /// Lets go of cancelled observers, observers whose owner is gone, and freed outputs.
    private func prune() {
        observers.removeAll(where: \.isFinished)
        outputs.removeAll { $0.output == nil }
    }
}

/// An owner-bound closure of ``NetworkIndicatorManager/observeProgress(owner:_:)``.
@MainActor
final class ProgressObserver {
    /// Calls the body with its owner, `false` once the owner is gone; `nil` once the owner is
    /// gone or the observation cancelled, so that the body (and what it captured) is freed.
    private var body: (@MainActor (Double?) -> Bool)?
    /// The owner, to let the body go at the next reading once the owner is gone, whether or not
    /// the fraction changed.
    private weak var owner: AnyObject?

    init<Owner: AnyObject>(owner: Owner, body: @escaping @MainActor (Owner, Double?) -> Void) {
        self.owner = owner
        self.body = { [weak owner] fraction in
            guard let owner else { return false }
            body(owner, fraction)
            return true
        }
    }

    var isFinished: Bool { body == nil || owner == nil }

    func tell(_ fraction: Double?) {
        guard let body else { return }
        if !body(fraction) { self.body = nil }
    }

    /// From the observation's `cancel()`: the body is freed at once and never called again.
    func cancel() {
        body = nil
    }
}

/// An output held weakly, as the manager holds every output.
@MainActor
struct WeakProgressOutput {
    weak var output: (any NetworkIndicatorOutput)?
}
