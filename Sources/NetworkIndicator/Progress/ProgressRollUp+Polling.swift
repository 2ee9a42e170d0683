import Foundation

/// Telling listeners: a repeating timer on the manager's scheduler runs only while the roll-up
/// has both listeners and tasks with progress. Each tick reads the batch and tells each listener
/// the fraction only when it changed. While a batch runs, the timer ticks every
/// ``pollInterval`` (at most ten updates a second, whatever the tasks report). While only tasks
/// of unknown size are listed, no timer runs if each of them tells when its total becomes known
/// (a ``NetworkActivityProgress``: the openapi middleware's requests, tracked sequences; see
/// ``sizeBecameKnown()``); a part that cannot tell (a `Progress` of Foundation's, which cannot be
/// observed on Linux, or a tracked `URLSessionTask` awaiting its response) is read every
/// ``unknownSizePollInterval`` instead, to see its total become known. The tick that finds the
/// batch over tells `nil` and, with nothing left listed, stops the timer: no timer runs for
/// work without progress, and no listener keeps a stale fraction.
extension ProgressRollUp {
    /// Seconds between two readings while a batch runs: 10 Hz, smooth for a bar, cheap for the
    /// main thread.
    static let pollInterval: TimeInterval = 0.1
    /// Seconds between two readings while only tasks of unknown size are listed.
    static let unknownSizePollInterval: TimeInterval = 1

    /// Starts, changes or stops the timer to fit the listeners and the listed parts now.
    func pollIfWanted() {
        let change = state.withLock { $0.pollingChange() }
        guard let change else { return }
        change.stopped?.cancel()
        guard let interval = change.interval else { return }
        let timer = driver.scheduler.schedule(after: interval, repeating: interval, leeway: interval / 10) {
            [weak self] in
            self?.tick()
        }
        let superfluous = state.withLock { state -> Bool in
            guard state.pollGeneration == change.generation, state.timer == nil else { return true }
            state.timer = timer
            return false
        }
        if superfluous { timer.cancel() }
    }

    /// One reading: tells the listeners if the fraction changed, then fits the timer to what is
    /// left to watch.
    @MainActor
    func tick() {
        let summary = read()
        let fraction = fractionCompleted(of: summary)
        driver.delivery.deliverProgress(fraction, to: driver.node)
        let hasListeners = driver.delivery.hasProgressListeners(driver.node)
        state.withLock { $0.hasListeners = hasListeners }
        pollIfWanted()
    }

    /// The fraction listeners are told for `summary`: the snapshot's.
    private func fractionCompleted(of summary: Batch.Summary) -> Double? {
        guard summary.isRunning, summary.total > 0 else { return nil }
        return min(max(summary.completed / summary.total, 0), 1)
    }

    /// A listed part's total became known (``SizeSignal``), from any thread: while listeners
    /// wait and no batch runs, one tick on the main queue reads it and starts the batch's timer.
    /// Without listeners nothing is asked for: a reader reads the part when it reads.
    func sizeBecameKnown() {
        guard state.withLock({ $0.hasListeners && $0.batch.startedAt == nil }) else { return }
        driver.scheduler.enqueue { [weak self] in self?.tick() }
    }

    /// The main-actor listeners changed: fits the timer to them.
    @MainActor
    func mainActorListenersChanged() {
        let hasListeners = driver.delivery.hasProgressListeners(driver.node)
        state.withLock { $0.hasListeners = hasListeners }
        tick()
    }
}

/// A change of the polling timer: the one to stop, and the interval of the one to start.
struct PollingChange {
    var stopped: (any NetworkIndicatorTimer)?
    var interval: TimeInterval?
    var generation: UInt64
}

extension ProgressRollUp.State {

    /// The interval the timer should run at: none without listeners or listed parts, the fast
    /// one while a batch runs (as last read, or begun since), the slow one while a listed part
    /// of unknown size cannot tell when its total becomes known, none otherwise.
    var wantedPollInterval: TimeInterval? {
        guard hasListeners, !batch.parts.isEmpty else { return nil }
        if batch.startedAt != nil { return ProgressRollUp.pollInterval }
        return batch.parts.contains { $0.sizeSignal == nil } ? ProgressRollUp.unknownSizePollInterval : nil
    }

    /// How the timer must change, `nil` if it runs at the wanted interval already.
    mutating func pollingChange() -> PollingChange? {
        let wanted = wantedPollInterval
        guard wanted != pollInterval else { return nil }
        pollInterval = wanted
        pollGeneration &+= 1
        defer { timer = nil }
        return PollingChange(stopped: timer, interval: wanted, generation: pollGeneration)
    }
}
