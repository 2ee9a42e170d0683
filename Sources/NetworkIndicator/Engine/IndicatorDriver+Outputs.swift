/// Attaching and detaching outputs: the one place where ``OutputDelivery`` (which outputs, and
/// whether each wants counts) and the machine (how many want counts) both hear of it.
extension IndicatorDriver {
    /// Attaches `output` and tells it the current visibility (and, if it wants counts, the
    /// last reconciled count) at once. Does nothing if it is attached already.
    @MainActor
    func addOutput(_ output: any NetworkIndicatorOutput) {
        let receivesCount = output.receivesActiveTaskCount
        guard delivery.attach(output, receivesCount: receivesCount) else { return }
        let count = outputAttached(receivesCount: receivesCount)
        output.networkIndicatorVisibilityDidChange(delivery.isVisible)
        if let count {
            output.networkIndicatorActiveTaskCountDidChange(count)
        }
    }

    /// Detaches `output`, if it is attached.
    @MainActor
    func removeOutput(_ output: any NetworkIndicatorOutput) {
        guard let receivedCount = delivery.detach(output) else { return }
        countObserversLeft(receivedCount ? 1 : 0)
    }
}
