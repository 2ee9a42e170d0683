import Foundation

/// Telling listeners: a repeating timer on the manager's scheduler, every
/// ``ProgressRollUp/pollInterval`` seconds, runs only while the roll-up has both listeners and
/// tasks with progress. Each tick reads the fraction and tells each listener only when it
/// changed: at most ten updates a second, whatever the tasks report. Once the last task with
/// progress has ended in a scope that stays busy, no timer runs: a ``ProgressIdleWatcher``
/// hears the manager's count instead, and the roll-up reads once more when it reaches zero, so
/// that listeners hear `nil`.
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
        watchForIdle(after: fraction)
    }

    /// With listeners told a fraction and no timer left to take it back to `nil`, waits for the
    /// scope to be idle through the manager's count (an output that receives counts, attached
    /// only for that wait, so that the engine's count hops cost nothing the rest of the time);
    /// otherwise lets any such wait go.
    @MainActor
    private func watchForIdle(after fraction: Double?) {
        let waits = state.withLock { fraction != nil && !$0.isPolling && $0.hasListeners }
        if waits, delivery.idleWatcher == nil {
            let watcher = ProgressIdleWatcher(rollUp: self)
            delivery.idleWatcher = watcher
            // Told the count at once: at zero it reads again (and lets itself go) right here.
            driver.addOutput(watcher)
        } else if !waits, let watcher = delivery.idleWatcher {
            delivery.idleWatcher = nil
            driver.removeOutput(watcher)
        }
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
        if fraction != nil { driver.scheduler.enqueue { [weak self] in self?.listenersChanged() } }
    }

    /// The main-actor listeners changed: polls if they are now wanted.
    @MainActor
    func mainActorListenersChanged() {
        let hasListeners = delivery.hasListeners
        state.withLock { $0.hasMainActorListeners = hasListeners }
        pollIfWanted()
        listenersChanged()
    }

    /// A listener came or went while no timer runs: a new one told a fraction must still hear
    /// the `nil` at idle, and with none left the idle wait ends.
    @MainActor
    private func listenersChanged() {
        guard !state.withLock({ $0.isPolling }) else { return }
        tick()
    }
}

/// Waits for the scope to go idle after its last task with progress ended, for
/// ``ProgressRollUp``'s listeners (see `watchForIdle(after:)`): attached to the manager as an
/// output that receives counts, held by the roll-up's delivery; holds the roll-up weakly.
@MainActor
final class ProgressIdleWatcher: NetworkIndicatorOutput {
    private weak var rollUp: ProgressRollUp?

    init(rollUp: ProgressRollUp) {
        self.rollUp = rollUp
    }

    var receivesActiveTaskCount: Bool { true }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        guard activeTaskCount == 0 else { return }
        rollUp?.tick()
    }
}

/// A stream of ``NetworkIndicatorManager/progressUpdates()`` and the value it was last given.
struct ProgressStream: Sendable {
    let continuation: AsyncStream<Double?>.Continuation
    var lastValue: Double?
}

extension ProgressRollUp.State {
    var hasListeners: Bool { hasMainActorListeners || !streams.isEmpty }

    /// Polling pays off only while someone listens and a task with progress is tracked (the
    /// `nil` at idle after the last one ended comes from the idle watcher, not from a timer).
    var wantsPolling: Bool { hasListeners && !entries.isEmpty }

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
