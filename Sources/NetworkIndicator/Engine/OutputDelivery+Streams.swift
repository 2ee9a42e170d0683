/// ``NetworkIndicatorManager/visibilityUpdates()``: a stream is an output that the delivery
/// itself keeps, attached on the main actor in order with the hops.
extension OutputDelivery {
    /// A ``NetworkIndicatorManager/visibilityUpdates()`` stream as an output. It finishes the
    /// stream when let go, even if the main queue never runs again.
    final class StreamOutput: NetworkIndicatorOutput {
        let continuation: AsyncStream<Bool>.Continuation

        nonisolated init(_ continuation: AsyncStream<Bool>.Continuation) {
            self.continuation = continuation
        }

        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
            continuation.yield(isVisible)
        }

        deinit {
            continuation.finish()
        }
    }

    /// Attaches a visibility stream to `node` as an output kept here, and yields the current
    /// visibility. The stream's end detaches it; the node's removal finishes it. From any thread:
    /// the attaching runs on the main actor, in order with the hops.
    nonisolated func attachStream(
        _ continuation: AsyncStream<Bool>.Continuation,
        to node: IndicatorTree.NodeID,
        on scheduler: any NetworkIndicatorScheduler
    ) {
        let output = StreamOutput(continuation)
        // Set before the attaching is queued, so that its detaching is queued after it.
        // Weak: the stream must keep neither the delivery (and its scheduler) nor its own output alive.
        continuation.onTermination = { [weak self, weak output] _ in
            self?.scheduler?.enqueue { [weak self] in
                if let output { _ = self?.detach(output, from: node) }
            }
        }
        scheduler.enqueue { [self] in
            // Its manager went, and a new scope took its place, before the stream could attach.
            guard attach(output, to: node, keeps: true) != nil else {
                return output.continuation.finish()
            }
            output.networkIndicatorVisibilityDidChange(isVisible(node))
        }
    }

    /// Whether `output`, one that follows one manager at a time (``ManagerAwareOutput``), now
    /// follows a live manager, of this tree or another: it moved there before its old node's
    /// removal ran (whose manager is gone), and that node's goodbye is not for it. O(1).
    func followsAnother(_ output: any NetworkIndicatorOutput) -> Bool {
        (output as? any ManagerAwareOutput)?.followedManager != nil
    }
}
