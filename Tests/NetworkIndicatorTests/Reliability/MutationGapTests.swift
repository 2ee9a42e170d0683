import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// Behaviour that a mutation run found no test pinning down (issue 13): with each of these
/// broken, the rest of the suite still passed. Public API only, manual time only.
@MainActor
@Suite("Mutation gaps")
struct MutationGapTests {
    /// Whether a token reports completion is decided per token type. A plain token begun first
    /// must not make the manager treat later types (an `Operation`, a custom reporting type) as
    /// plain, and the reverse.
    @Test func completionReportingIsDecidedPerTokenTypeNotByTheFirstTypeSeen() {
        let harness = Harness(completionCheckInterval: 1)
        let plain = Token()
        let operation = BlockOperation {}
        let laterPlain = Token()
        let upload = CompletableToken()
        harness.manager.beganNetworkTask(withToken: plain)
        harness.manager.beganNetworkTask(withToken: operation)
        harness.manager.beganNetworkTask(withToken: laterPlain)
        harness.manager.beganNetworkTask(withToken: upload)
        harness.settle()
        #expect(harness.manager.activeTaskCount == 4)

        operation.start()
        #expect(operation.isFinished)
        upload.finish()
        harness.advance(by: 1)
        #expect(
            harness.manager.activeTaskCount == 2,
            "the held, finished Operation and reporting token end at the sweep; the plain tokens stay"
        )
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 2, "plain tokens that are alive never end by a sweep")
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime((plain, operation, laterPlain, upload)) {}
    }

    /// A stream opened while a visibility change waits for its hop is primed by that hop with
    /// the new value, once: not primed and sent the change as well.
    @Test func aStreamOpenedInTheHopOfAVisibilityChangeGetsTheValueOnce() async {
        // Read in step: only the newest value waits for a slow consumer.
        var harness: Harness? = Harness()
        harness!.manager.pushNetworkActivity()
        let stream = harness!.manager.visibilityUpdates()
        #expect(harness!.scheduler.pendingWorkCount == 2, "the change's hop, then the stream's attaching")
        harness!.settle()
        var values: [Bool] = []
        var iterator = stream.makeAsyncIterator()
        if let value = await iterator.next() { values.append(value) }
        harness!.manager.popNetworkActivity()
        harness!.settle()
        #expect(harness!.visibilityChanges == [false, true, false])

        harness = nil  // the manager goes away, which finishes the stream
        while let value = await iterator.next() { values.append(value) }
        #expect(values == [true, false], "the current value once, then each change; never a duplicate")
    }

    /// Counts are reconciled only while an output wants them, so an output that wants counts,
    /// added after counts changed without a hop, must be brought up to the exact count.
    @Test func aCountObserverAddedAfterUnreportedCountChangesCatchesUpToTheExactCount() {
        let harness = Harness()  // its output does not want counts
        harness.manager.pushNetworkActivity()
        harness.settle()
        let hops = harness.scheduler.enqueuedWorkCount
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        harness.manager.pushNetworkActivity()
        #expect(harness.scheduler.enqueuedWorkCount == hops, "no edge and no count observer: no hop")

        let counter = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        harness.manager.addOutput(counter)
        harness.settle()
        #expect(counter.activeTaskCounts.last == 4, "told \(counter.activeTaskCounts)")
        #expect(counter.visibilityChanges == [true])
    }

    /// The same after the count went *down* unreported: the observer must not keep the higher
    /// count it was told when it was added.
    @Test func aCountObserverAddedAfterUnreportedFinishesCatchesUpDownwards() {
        let harness = Harness()
        for _ in 0..<4 { harness.manager.pushNetworkActivity() }
        harness.settle()
        for _ in 0..<3 { harness.manager.popNetworkActivity() }  // no edge, no observer: no hop

        let counter = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        harness.manager.addOutput(counter)
        harness.settle()
        #expect(counter.activeTaskCounts == [4, 1], "told the last reported count, then the truth")
    }

    /// Every count change costs a main-queue hop while an output wants counts, and none once the
    /// last such output is removed (removing an output that does not want counts changes
    /// nothing).
    @Test func removingTheLastCountObserverStopsTheHopsForCountChanges() {
        let harness = Harness(receivesCounts: true)
        let second = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        let plain = RecordingNetworkIndicatorOutput()
        harness.manager.addOutput(second)
        harness.manager.addOutput(plain)
        harness.manager.pushNetworkActivity()
        harness.settle()

        harness.manager.removeOutput(plain)
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.removeOutput(harness.output)
        harness.manager.pushNetworkActivity()
        harness.settle()
        #expect(harness.output.activeTaskCounts == [0, 1, 2])
        #expect(second.activeTaskCounts == [0, 1, 2, 3], "an observer is left: counts still flow")

        harness.manager.removeOutput(second)
        let hops = harness.scheduler.enqueuedWorkCount
        for _ in 0..<5 {
            harness.manager.pushNetworkActivity()
            harness.settle()
            harness.manager.popNetworkActivity()
            harness.settle()
        }
        #expect(harness.scheduler.enqueuedWorkCount == hops, "no count observer, no edge: no hop")
        #expect(harness.manager.activeTaskCount == 3)
    }

    /// A cancelled delay timer that fires anyway (its firing was already on its way, as a
    /// `DispatchSourceTimer`'s can be) is ignored: it neither hides the indicator before the
    /// running completion delay ends, nor starts any timer.
    ///
    /// The visibility policy checks elapsed time itself at every firing, so a stale firing that
    /// were obeyed would still hide on time; what it would cost is a timer restarted for the
    /// rest of the delay. Both are checked.
    @Test func aCancelledDelayTimerThatFiresLateIsIgnored() {
        let scheduler = CancelIgnoringScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 1
        let output = RecordingNetworkIndicatorOutput()
        manager.addOutput(output)
        let manual = scheduler.base

        manager.pushNetworkActivity()
        manual.runPendingWork()
        manager.popNetworkActivity()
        manual.runPendingWork()  // the completion delay starts timer A, due at 1
        manual.advance(by: 0.5)
        manager.settings.isEnabled = false
        manual.runPendingWork()  // hides at once and cancels timer A, which will fire anyway
        manager.settings.isEnabled = true
        manager.pushNetworkActivity()
        manual.runPendingWork()
        #expect(output.visibilityChanges == [false, true, false, true])

        manual.advance(by: 0.25)
        manager.popNetworkActivity()
        manual.runPendingWork()  // the completion delay starts timer B, due at 1.75
        let timers = manual.scheduledTimerCount
        manual.advance(by: 0.5)  // timer A fires, stale, at 1
        #expect(output.visibilityChanges == [false, true, false, true], "hidden before the delay ended")
        #expect(manual.scheduledTimerCount == timers, "a stale firing must start nothing")
        manual.advance(by: 0.5)
        #expect(output.visibilityChanges == [false, true, false, true, false], "timer B hides at 1.75")
    }
}

/// A manual scheduler whose timers cannot be cancelled: every timer fires, as one whose
/// firing was already queued when it was cancelled would.
private struct CancelIgnoringScheduler: NetworkIndicatorScheduler {
    let base = ManualNetworkIndicatorScheduler()

    var now: TimeInterval { base.now }

    func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
        base.enqueue(work)
    }

    func schedule(
        after delay: TimeInterval,
        repeating interval: TimeInterval?,
        leeway: TimeInterval,
        _ work: @escaping @MainActor @Sendable () -> Void
    ) -> any NetworkIndicatorTimer {
        _ = base.schedule(after: delay, repeating: interval, leeway: leeway, work)
        return IgnoredCancellation()
    }
}

private struct IgnoredCancellation: NetworkIndicatorTimer {
    func cancel() {}
}
