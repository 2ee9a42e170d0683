import Foundation

/// Telling listeners: a repeating timer on the manager's scheduler, every
/// ``ProgressRollUp/pollInterval`` seconds, runs only while the roll-up has both listeners and
/// entries (or a fraction to take back to `nil`). Each tick reads the fraction and tells each
/// listener only when it changed: at most ten updates a second, whatever the tasks report.
extension ProgressRollUp {
    /// Seconds between two readings while polling: 10 Hz, smooth for a bar, cheap for the main
    /// thread.
    static let pollInterval: TimeInterval = 0.1

    /// Starts the timer (the caller set ``State/isPolling``); a timer the lock no longer wants is
    /// cancelled at once.
    func startPolling() {
        let interval = Self.pollInterval
        let timer = driver.scheduler.schedule(after: interval, repeating: interval, leeway: interval / 10) {
            [weak self] in
            self?.tick()
        }
        let superfluous = state.withLock { state -> Bool in
            guard state.isPolling, state.timer == nil else { return true }
            state.timer = timer
            return false
        }
        if superfluous { timer.cancel() }
    }

    /// Starts polling if listeners and entries now both exist.
    func pollIfWanted() {
        let starts = state.withLock { state -> Bool in
            guard state.wantsPolling, !state.isPolling else { return false }
            state.isPolling = true
            return true
        }
        if starts { startPolling() }
    }

    /// One reading: tells the listeners if the fraction changed, then stops when nothing is left
    /// to watch (no entries and nothing but `nil` to tell, or nobody listening).
    @MainActor
    func tick() {
        let fraction = fractionCompleted()
        delivery.deliver(fraction)
        let hasListeners = delivery.hasListeners
        let (streams, stopped) = state.withLock { state in
            state.hasMainActorListeners = hasListeners
            let streams = state.takeStreamDeliveries(fraction)
            guard state.isPolling, !state.wantsPolling else {
                return (streams, nil as (any NetworkIndicatorCancellable)?)
            }
            state.isPolling = false
            defer { state.timer = nil }
            return (streams, state.timer)
        }
        for stream in streams { stream.yield(fraction) }
        stopped?.cancel()
    }

    // MARK: - Streams, from any thread

    /// Registers a stream, primed with the fraction now.
    func addStream(_ continuation: AsyncStream<Double?>.Continuation) {
        let fraction = fractionCompleted()
        continuation.yield(fraction)
        let id = state.withLock { state in
            defer { state.nextStreamID &+= 1 }
            state.streams[state.nextStreamID] = ProgressStream(continuation: continuation, lastValue: fraction)
            return state.nextStreamID
        }
        // Weak: the roll-up finishes its streams when its manager goes away, and a strong
        // reference from its own continuation would keep it alive.
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        pollIfWanted()
    }

    /// The main-actor listeners changed: polls if they are now wanted.
    @MainActor
    func mainActorListenersChanged() {
        let hasListeners = delivery.hasListeners
        state.withLock { $0.hasMainActorListeners = hasListeners }
        pollIfWanted()
    }
}

/// A stream of ``NetworkIndicatorManager/progressUpdates()`` and the value it was last given.
struct ProgressStream: Sendable {
    let continuation: AsyncStream<Double?>.Continuation
    var lastValue: Double?
}

extension ProgressRollUp.State {
    var hasListeners: Bool { hasMainActorListeners || !streams.isEmpty }

    /// Polling pays off only while someone listens and there is something to read: an entry, or
    /// a fraction of ended tasks that must still go back to `nil` when the scope is idle.
    var wantsPolling: Bool { hasListeners && (!entries.isEmpty || finishedUnits > 0) }

    /// The streams whose last value differs from `fraction`, marked as told.
    mutating func takeStreamDeliveries(_ fraction: Double?) -> [AsyncStream<Double?>.Continuation] {
        var due: [AsyncStream<Double?>.Continuation] = []
        for (id, stream) in streams where stream.lastValue != fraction {
            streams[id]?.lastValue = fraction
            due.append(stream.continuation)
        }
        return due
    }
}
