import Foundation

/// Telling listeners: a repeating deadline on the tree's one timer (``OutputDelivery``) runs only
/// while the roll-up has both listeners and tasks with progress. Each tick reads the batch and tells each listener
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

    /// Starts, changes or stops the poll to fit the listeners and the listed parts now. The
    /// tree's delivery is told on the main actor, at once if called there, else in a hop; it
    /// reads the interval wanted when it runs, so a later change is never undone by an earlier.
    func pollIfWanted() {
        let node = driver.node
        guard driver.withTree({ $0.progressPollingChanged(of: node) }) else { return }
        if MainQueue.isCurrent {
            MainActor.assumeIsolated { applyPollInterval() }
        } else {
            driver.scheduler.enqueue { [weak self] in self?.applyPollInterval() }
        }
    }

    /// Gives the tree's delivery the interval wanted now (`nil`: no poll).
    @MainActor
    private func applyPollInterval() {
        let node = driver.node
        let interval = driver.withTree { $0.progressPollInterval(of: node) }
        driver.delivery.call(self, after: interval, repeating: interval, for: node)
    }

    /// One reading: tells the listeners if the fraction changed, then fits the poll to the
    /// listeners now and to what is left to watch. Also run when the listeners change.
    @MainActor
    func tick() {
        let node = driver.node
        driver.delivery.deliverProgress(readAndFold(settling: false).summary.fraction, to: node)
        let hasListeners = driver.delivery.hasProgressListeners(node)
        guard driver.withTree({ $0.progressPollingChanged(of: node, hasListeners: hasListeners) }) else { return }
        applyPollInterval()
    }

    /// A listed part's total became known (``SizeSignal``), from any thread: while listeners
    /// wait and no batch runs, one tick on the main queue reads it and starts the batch's timer.
    /// Without listeners nothing is asked for: a reader reads the part when it reads.
    func sizeBecameKnown() {
        let node = driver.node
        guard driver.withTree({ $0.waitsForAKnownSize(node) }) else { return }
        driver.scheduler.enqueue { [weak self] in self?.tick() }
    }
}

extension ProgressRollUp: DeadlineTarget {
    /// The poll's deadline: one reading.
    @MainActor
    func deadlineFired(generation: UInt64) {
        tick()
    }
}
