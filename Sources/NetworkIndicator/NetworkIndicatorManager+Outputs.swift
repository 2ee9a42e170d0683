extension NetworkIndicatorManager {
    /// Attaches `output`: from now on it is told, on the main actor, whenever the indicator
    /// appears or disappears. It is told the current visibility (and, if it receives counts,
    /// the last reconciled count) right away.
    ///
    /// The manager retains the output until ``removeOutput(_:)``: an output that refers back
    /// to the manager should do so `weak` or `unowned`, or the two keep each other alive.
    /// Adding an output that is already attached does nothing. May be called from an output's
    /// own callback.
    @MainActor
    public func addOutput(_ output: any NetworkIndicatorOutput) {
        let receivesCount = output.receivesActiveTaskCount
        let added = state.withLock { state -> (visibility: Bool, count: Int, hop: Bool)? in
            guard !state.main.outputs.contains(where: { $0.output === output }) else { return nil }
            state.main.outputs.append((output, receivesCount))
            if receivesCount { state.main.countObservingOutputCount += 1 }
            // Counts are only reconciled while someone listens: catch up with the registry.
            let isCountStale = receivesCount && state.main.deliveredCount != state.registry.activeTaskCount
            return (state.main.deliveredVisibility, state.main.deliveredCount, isCountStale && state.requestHop())
        }
        guard let added else { return }
        if added.hop { enqueueReconcile() }
        output.networkIndicatorVisibilityDidChange(added.visibility)
        if receivesCount {
            output.networkIndicatorActiveTaskCountDidChange(added.count)
        }
    }

    /// Detaches `output`; it is told nothing more, even by a delivery already under way (so
    /// hide its indicator yourself if it was showing). Removing an output that is not attached
    /// does nothing. May be called from an output's own callback.
    ///
    /// When the manager itself is deallocated, its outputs are told `false` (if the indicator
    /// was showing) and released on the main queue.
    @MainActor
    public func removeOutput(_ output: any NetworkIndicatorOutput) {
        let removed = state.withLock { state -> (any NetworkIndicatorOutput)? in
            guard let index = state.main.outputs.firstIndex(where: { $0.output === output }) else {
                return nil
            }
            let entry = state.main.outputs.remove(at: index)
            if entry.receivesCount { state.main.countObservingOutputCount -= 1 }
            return entry.output
        }
        // Released here, outside the lock, in case this was the last reference.
        _ = removed
    }

    /// The outputs attached now, in the order they were added.
    @MainActor
    public var outputs: [any NetworkIndicatorOutput] {
        state.withLock { $0.main.outputs.map(\.output) }
    }

    /// A stream of the indicator's visibility: the current value first, then every change, in
    /// order, as the outputs are told.
    ///
    /// Values are produced on the main queue (the first one after the next main-queue hop), and
    /// buffered without limit, so a slow consumer sees every change. The stream finishes when
    /// the manager is deallocated; cancelling the consuming task unsubscribes it. Callable from
    /// any thread.
    ///
    /// ```swift
    /// for await isVisible in manager.visibilityUpdates() {
    ///     spinner.isHidden = !isVisible
    /// }
    /// ```
    public func visibilityUpdates() -> AsyncStream<Bool> {
        let (stream, continuation) = AsyncStream.makeStream(of: Bool.self)
        let (id, hop) = state.withLock { state in
            let id = state.main.nextStreamID
            state.main.nextStreamID += 1
            state.main.streams[id] = continuation
            state.main.unprimedStreamIDs.append(id)
            return (id, state.requestHop())
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.main.streams[id] = nil
                state.main.unprimedStreamIDs.removeAll { $0 == id }
            }
        }
        if hop { enqueueReconcile() }
        return stream
    }
}
