import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Count changes that do not change visibility cost a main-queue hop only while an attached
/// output asks for counts. The outputs here rely on the protocol's default for
/// `receivesActiveTaskCount`, as most app-written outputs do.
@MainActor
@Suite("Count changes and main-queue hops")
struct CountHopTests {
    private let scheduler = ManualNetworkIndicatorScheduler()

    /// A manager showing the indicator for one open task, `output` attached, every hop run.
    private func visibleManager(with output: any NetworkIndicatorOutput) -> NetworkIndicatorManager {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0
        manager.settings.completionDelay = 0
        manager.addOutput(output)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        return manager
    }

    /// Pushes and pops without ever reaching zero, running pending work after each.
    private func changeCountsWithoutChangingVisibility(_ manager: NetworkIndicatorManager) {
        for _ in 0..<3 {
            manager.pushNetworkActivity()
            scheduler.runPendingWork()
        }
        for _ in 0..<2 {
            manager.popNetworkActivity()
            scheduler.runPendingWork()
        }
    }

    @Test func aPlainOutputByDefaultDoesNotReceiveCounts() {
        #expect(!PlainOutput().receivesActiveTaskCount)
        #expect(!ClosureObserver(.visibility { _ in }).receivesActiveTaskCount)
    }

    @Test func countChangesCauseNoHopWithOnlyAPlainOutput() {
        let output = PlainOutput()
        let manager = visibleManager(with: output)
        let hops = scheduler.enqueuedWorkCount
        changeCountsWithoutChangingVisibility(manager)
        #expect(scheduler.enqueuedWorkCount == hops, "one hop per count change that no output asked for")
        #expect(output.visibilityChanges == [false, true])
        #expect(manager.activeTaskCount == 2)
    }

    @Test func countChangesCauseNoHopWithOnlyAVisibilityObservation() {
        let output = ClosureObserver(.visibility { _ in })
        let manager = visibleManager(with: output)
        let hops = scheduler.enqueuedWorkCount
        changeCountsWithoutChangingVisibility(manager)
        #expect(scheduler.enqueuedWorkCount == hops, "one hop per count change that no output asked for")
    }

    @Test func countChangesCauseAHopEachWithACountReceivingOutput() {
        let output = CountingOutput()
        let manager = visibleManager(with: output)
        let hops = scheduler.enqueuedWorkCount
        changeCountsWithoutChangingVisibility(manager)
        #expect(scheduler.enqueuedWorkCount == hops + 5, "one hop per count change")
        #expect(output.counts == [0, 1, 2, 3, 4, 3, 2])
        _ = manager
    }

    /// A count output released by its owner is let go once: the one still alive keeps hearing
    /// every count, however many hops run after the release.
    @Test func aReleasedCountOutputIsLetGoOnce() {
        let kept = CountingOutput()
        var released: CountingOutput? = CountingOutput()
        let manager = visibleManager(with: kept)
        manager.addOutput(released!)
        released = nil
        changeCountsWithoutChangingVisibility(manager)
        #expect(kept.counts == [0, 1, 2, 3, 4, 3, 2])
    }

    /// The sweep ends the tasks of dead tokens (its first step) and of tokens that report
    /// completion (its last) and then brings the schedule up to date itself: the change reaches
    /// the count output once, with no main-queue hop of its own.
    @Test func aSweepThatEndsTasksQueuesNoHop() {
        let output = CountingOutput()
        let manager = visibleManager(with: output)
        var request: Token? = Token()
        let upload = CompletableToken()
        manager.beganNetworkTask(withToken: request!)
        manager.beganNetworkTask(withToken: upload)
        scheduler.runPendingWork()
        request = nil
        upload.finish()
        let hops = scheduler.enqueuedWorkCount
        scheduler.advance(by: manager.settings.completionCheckInterval)
        #expect(manager.activeTaskCount == 1)
        #expect(output.counts == [0, 1, 3, 1])
        #expect(scheduler.enqueuedWorkCount == hops, "the sweep's own reconcile told the count")
    }

    /// A screen replaced from an output's callback: the old scope and its count output go, and a
    /// new scope takes the old one's place in the tree before the callback returns. Letting go of
    /// the old scope's count output must not count against the new scope's.
    @Test func aScopeMadeInACallbackInAReleasedScopesPlaceKeepsItsCountOutputs() {
        let root = NetworkIndicatorManager(scheduler: scheduler)
        var old: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "Old")
        old!.settings.startDelay = 0
        var oldCounts: CountingOutput? = CountingOutput()
        old!.addOutput(oldCounts!)
        var new: NetworkIndicatorManager?
        let replacer = ShowingOutput {
            old = nil
            oldCounts = nil
            new = NetworkIndicatorManager(parent: root, label: "New")
        }
        old!.addOutput(replacer)
        old!.pushNetworkActivity()
        scheduler.runPendingWork()
        let newCounts = CountingOutput()
        new!.addOutput(newCounts)
        new!.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(newCounts.counts == [0, 1])
        #expect(old == nil && oldCounts == nil, "the callback ran")
    }

    @Test func anOutputThatAsksForCountsAndFractionsMayKeepTheDefaultHandlers() {
        let output = OptedInOutput()
        let manager = visibleManager(with: output)
        let hops = scheduler.enqueuedWorkCount
        changeCountsWithoutChangingVisibility(manager)
        #expect(scheduler.enqueuedWorkCount == hops + 5, "it asked for counts: one hop per count change")
        let timers = scheduler.scheduledTimerCount
        let download = manager.beganNetworkTask(label: "download", progress: Progress(totalUnitCount: 10))
        #expect(scheduler.scheduledTimerCount > timers, "it asked for fractions: the progress timer runs")
        scheduler.advance(by: 1)  // fractions for the default handler
        download.stopTracking()
        for _ in 0..<2 { manager.popNetworkActivity() }
        scheduler.advance(by: 1)
        #expect(manager.activeTaskCount == 0)
        #expect(output.visibilityChanges == [false, true, false], "the default handlers change nothing")
    }
}

/// An output that implements only what the protocol requires.
@MainActor
private final class PlainOutput: NetworkIndicatorOutput {
    private(set) var visibilityChanges: [Bool] = []

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        visibilityChanges.append(isVisible)
    }
}

/// An output that asks for counts.
@MainActor
private final class CountingOutput: NetworkIndicatorOutput {
    private(set) var counts: [Int] = []

    var receivesActiveTaskCount: Bool { true }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    func networkIndicatorActiveTaskCountDidChange(_ activeTaskCount: Int) {
        counts.append(activeTaskCount)
    }
}

/// An output that asks for counts and fractions but keeps the protocol's default handlers.
@MainActor
private final class OptedInOutput: NetworkIndicatorOutput {
    private(set) var visibilityChanges: [Bool] = []

    var receivesActiveTaskCount: Bool { true }

    var receivesFractionCompleted: Bool { true }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        visibilityChanges.append(isVisible)
    }
}

/// An output that runs `onShow` when the indicator shows.
@MainActor
private final class ShowingOutput: NetworkIndicatorOutput {
    private let onShow: () -> Void

    init(onShow: @escaping () -> Void) {
        self.onShow = onShow
    }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        if isVisible { onShow() }
    }
}
