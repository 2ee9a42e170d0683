import Foundation

/// What the driver does on the main actor or with its lock released: attaching outputs, and
/// diagnostics. The tree's hop, timers and sweep are ``OutputDelivery``'s.
extension IndicatorDriver {
    /// Passes a diagnostic to the handler, outside the lock.
    func report(_ kind: NetworkIndicatorDiagnostic.Kind, label: String) {
        diagnosticsHandler(NetworkIndicatorDiagnostic(kind: kind, label: label))
    }

    /// Attaches `output` and tells it the visibility (and, if it wants counts, the last reconciled
    /// count) at once; nothing if attached already. Both ``OutputDelivery`` and the machine hear of it.
    @MainActor
    func addOutput(_ output: any NetworkIndicatorOutput) {
        let receivesCount = output.receivesActiveTaskCount
        guard delivery.attach(output, to: node, receivesCount: receivesCount) else { return }
        let count = outputAttached(receivesCount: receivesCount)
        output.networkIndicatorVisibilityDidChange(delivery.isVisible(node))
        if let count {
            output.networkIndicatorActiveTaskCountDidChange(count)
        }
    }

    /// Detaches `output`, if it is attached; returns whether it was.
    @MainActor
    @discardableResult
    func removeOutput(_ output: any NetworkIndicatorOutput) -> Bool {
        guard let receivedCount = delivery.detach(output, from: node) else { return false }
        countObserversLeft(receivedCount ? 1 : 0)
        return true
    }
}
