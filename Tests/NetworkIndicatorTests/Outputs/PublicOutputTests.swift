import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// The outputs as an app creates them: through their public initializers only (no
/// `@testable`), so that an initializer that stops being public fails to compile here.
@MainActor
@Suite("Outputs through their public API")
struct PublicOutputTests {
    @Test func aModelCreatedOnItsOwnFollowsTheManagerItIsAddedTo() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0
        let model = NetworkIndicatorModel()
        manager.addOutput(model)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(model.isVisible)
        #expect(model.activeTaskCount == 1)
    }

    /// Hears the fraction, and may act on it.
    @MainActor
    private final class FractionOutput: NetworkIndicatorOutput {
        var fractions: [Double?] = []
        var onFraction: ((Double?) -> Void)?
        var receivesFractionCompleted: Bool { true }
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) {
            fractions.append(fraction)
            onFraction?(fraction)
        }
    }

    /// Records the counts it is told; whether it asks for them may change after it is added.
    @MainActor
    private final class SwitchableCounter: NetworkIndicatorOutput {
        var wantsCounts: Bool
        var counts: [Int] = []
        init(wantsCounts: Bool) { self.wantsCounts = wantsCounts }
        var receivesActiveTaskCount: Bool { wantsCounts }
        func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
        func networkIndicatorActiveTaskCountDidChange(_ count: Int) { counts.append(count) }
    }

    /// "Whether the output also wants networkIndicatorActiveTaskCountDidChange. Read once, when
    /// the output is added." (NetworkIndicatorOutput.swift:28)
    @Test func anOutputThatStartsWantingCountsAfterItWasAddedIsToldNone() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = SwitchableCounter(wantsCounts: false)
        manager.addOutput(output)
        output.wantsCounts = true
        for _ in 0..<2 {
            manager.pushNetworkActivity()
            scheduler.runPendingWork()
        }
        #expect(output.counts.isEmpty)
    }

    /// "Read once, when the output is added." — the other way: an output that stops wanting
    /// counts still gets them. (NetworkIndicatorOutput.swift:28)
    @Test func anOutputThatStopsWantingCountsAfterItWasAddedIsStillToldThem() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = SwitchableCounter(wantsCounts: true)
        manager.addOutput(output)
        output.wantsCounts = false
        for _ in 0..<2 {
            manager.pushNetworkActivity()
            scheduler.runPendingWork()
        }
        #expect(output.counts == [0, 1, 2])
    }

    /// "Attach an output to one manager: an output attached to two hears both, interleaved"
    /// (NetworkIndicatorManager+Outputs.swift:12)
    @Test func aPlainOutputAddedToTwoManagersHearsBoth() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let first = NetworkIndicatorManager(scheduler: scheduler)
        let second = NetworkIndicatorManager(scheduler: scheduler)
        first.settings.completionDelay = 0
        second.settings.completionDelay = 0
        let output = RecordingNetworkIndicatorOutput()
        first.addOutput(output)
        second.addOutput(output)
        #expect(output.visibilityChanges == [false, false])
        second.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(output.visibilityChanges == [false, false, true])
        #expect(first.outputs.contains { $0 === output }, "a plain output stays on the first")
    }

    /// Two fraction outputs of a download's manager, added in turn; when the first hears the
    /// download half done, `change` runs with the manager and the second. Both, after that
    /// delivery.
    private func halfDoneDelivery(
        _ change: @escaping @MainActor (NetworkIndicatorManager, FractionOutput) -> Void
    ) -> (first: FractionOutput, second: FractionOutput) {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let download = Progress(totalUnitCount: 10)
        let token = manager.beganNetworkTask(progress: download)
        let (first, second) = (FractionOutput(), FractionOutput())
        manager.addOutput(first)
        manager.addOutput(second)
        first.onFraction = { [weak manager] fraction in
            if fraction == 0.5, let manager { change(manager, second) }
        }
        download.completedUnitCount = 5
        scheduler.advance(by: 0.1)
        withExtendedLifetime(token) {}
        return (first, second)
    }

    /// An output removed by another one's call, while the fraction is being told, is told
    /// nothing more, as for visibility and counts.
    @Test func anOutputRemovedDuringAFractionsDeliveryIsToldNothingMore() {
        let (first, second) = halfDoneDelivery { manager, second in manager.removeOutput(second) }
        #expect(first.fractions == [0, 0.5])
        #expect(second.fractions == [0])
    }

    /// `receivesFractionCompleted` is read once, when the output is added: what it says then
    /// decides, whatever it says later.
    @Test func whetherAnOutputWantsTheFractionIsReadOnceAsItIsAdded() {
        @MainActor
        final class CountingBar: NetworkIndicatorOutput {
            var reads = 0
            var fractions: [Double?] = []
            var receivesFractionCompleted: Bool {
                reads += 1
                return reads == 1
            }
            func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
            func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) { fractions.append(fraction) }
        }
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let bar = CountingBar()
        manager.addOutput(bar)
        #expect(bar.reads == 1)
        #expect(bar.fractions == [nil], "told the fraction, as its one answer asked")
    }

    /// `receivesFractionCompleted` is read when the output is added: one that stops wanting the
    /// fraction, then is removed, is told nothing more, and leaves no poll running.
    @Test func anOutputThatStoppedWantingTheFractionIsToldNothingOnceRemoved() {
        @MainActor
        final class SwitchableBar: NetworkIndicatorOutput {
            var showsProgress = true
            var fractions: [Double?] = []
            var receivesFractionCompleted: Bool { showsProgress }
            func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
            func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) { fractions.append(fraction) }
        }
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let bar = SwitchableBar()
        manager.addOutput(bar)
        let progress = NetworkActivityProgress(totalUnitCount: 10)
        let token = manager.beganNetworkTask(progress: progress)
        progress.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        bar.showsProgress = false
        manager.removeOutput(bar)
        #expect(scheduler.pendingWorkCount == 0, "no poll without a listener, from the removal on")
        let told = bar.fractions
        progress.completedUnitCount = 5
        scheduler.advance(by: 0.1)
        #expect(told == [nil, 0.1])
        #expect(bar.fractions == told)
        withExtendedLifetime(token) {}
    }

    /// Removed and added again by another one's call while the fraction is told: told the new
    /// fraction once, by its `addOutput`.
    @Test func anOutputAddedAgainDuringAFractionsDeliveryIsToldItOnce() {
        let (_, second) = halfDoneDelivery { manager, second in
            manager.removeOutput(second)
            manager.addOutput(second)
        }
        #expect(second.fractions == [0, 0.5])
    }

    /// An output that removes itself in the call that tells it the visibility when it is added
    /// is told nothing more: no count, no fraction.
    @Test func anOutputRemovingItselfAsItIsAddedIsToldNothingMore() {
        @MainActor
        final class SelfRemoving: NetworkIndicatorOutput {
            weak var manager: NetworkIndicatorManager?
            var counts: [Int] = []
            var fractions: [Double?] = []
            var receivesActiveTaskCount: Bool { true }
            var receivesFractionCompleted: Bool { true }
            func networkIndicatorVisibilityDidChange(_ isVisible: Bool) { manager?.removeOutput(self) }
            func networkIndicatorActiveTaskCountDidChange(_ count: Int) { counts.append(count) }
            func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) { fractions.append(fraction) }
        }
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let download = Progress(totalUnitCount: 10)
        let token = manager.beganNetworkTask(progress: download)
        scheduler.runPendingWork()
        let output = SelfRemoving()
        output.manager = manager
        manager.addOutput(output)
        download.completedUnitCount = 5
        scheduler.advance(by: 0.1)
        #expect(output.counts.isEmpty)
        #expect(output.fractions.isEmpty)
        withExtendedLifetime(token) {}
    }

    /// An output removed and added again by another output's call, in the delivery that was
    /// about to tell it, hears the change once: from its `addOutput`, not again from the
    /// delivery that went on.
    @Test func anOutputAddedAgainDuringADeliveryIsToldOnce() {
        @MainActor
        final class Readder: NetworkIndicatorOutput {
            let manager: NetworkIndicatorManager
            let other: RecordingNetworkIndicatorOutput
            init(_ manager: NetworkIndicatorManager, _ other: RecordingNetworkIndicatorOutput) {
                (self.manager, self.other) = (manager, other)
            }
            func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
                guard isVisible else { return }
                manager.removeOutput(other)
                manager.addOutput(other)
            }
        }
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.completionDelay = 0
        let late = RecordingNetworkIndicatorOutput()
        let readder = Readder(manager, late)
        manager.addOutput(readder)
        manager.addOutput(late)
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        #expect(late.visibilityChanges == [false, true])
        withExtendedLifetime((readder, token)) {}
    }
}
