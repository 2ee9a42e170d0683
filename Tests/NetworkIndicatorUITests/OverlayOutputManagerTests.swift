import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// An overlay output attached to a real manager (a manual scheduler stands in for the main
/// queue): what `isEnabled`, `removeOutput` and the manager's end do to the overlay. The test
/// output forwards to ``OverlayOutputCore`` as the UIKit and AppKit outputs do, line for line.
@MainActor
@Suite("Overlay output and its manager")
struct OverlayOutputManagerTests {
    private typealias Output = CoreBackedOutput

    private let scheduler = ManualNetworkIndicatorScheduler()

    /// A load that the overlay draws for: begun, then the show delay.
    private func drawnLoad(in manager: NetworkIndicatorManager, output: Output) {
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(output.drawn == [true])
    }

    @Test func anOutputAddedToADisabledManagerNeverDraws() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.isEnabled = false
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(output.drawn.isEmpty)
    }

    @Test func disablingErasesAtOnceAndStaysErasedThroughCountChanges() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        drawnLoad(in: manager, output: output)
        manager.settings.isEnabled = false
        scheduler.runPendingWork()
        #expect(output.drawn == [true, false], "at once: no minimum time for a disabled manager")
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(output.drawn == [true, false], "a count change does not bring it back")
    }

    @Test func disablingErasesAnOverlayDrawnBeforeTheManagersIndicator() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 2  // the manager's own indicator shows after the overlay
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        drawnLoad(in: manager, output: output)
        manager.settings.isEnabled = false
        scheduler.runPendingWork()
        #expect(output.drawn == [true, false])
    }

    @Test func enablingAgainDrawsARunningLoadAfterTheShowDelay() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.isEnabled = false
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        manager.settings.isEnabled = true
        scheduler.runPendingWork()
        #expect(output.drawn.isEmpty, "no count changed, yet the overlay heard")
        scheduler.advance(by: 0.5)
        #expect(output.drawn == [true])
    }

    @Test func removingTheOutputTakesTheOverlayDown() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        drawnLoad(in: manager, output: output)
        manager.removeOutput(output)
        #expect(output.drawn == [true, false], "erased at once")
        scheduler.advance(by: 5)
        #expect(output.drawn == [true, false])
    }

    @Test func addingTheOutputAgainStartsFromTheCountThen() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        drawnLoad(in: manager, output: output)
        manager.removeOutput(output)
        manager.addOutput(output)
        #expect(output.drawn == [true, false], "the show delay again")
        scheduler.advance(by: 0.5)
        #expect(output.drawn == [true, false, true], "the load still runs: drawn again")
    }

    @Test func removingFromAnotherManagerChangesNothing() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let other = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        drawnLoad(in: manager, output: output)
        other.removeOutput(output)
        scheduler.advance(by: 5)
        #expect(output.drawn == [true])
    }

    @Test func aManagerDeallocatedWhileHiddenLeavesNoOverlayDrawn() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        manager!.settings.startDelay = 10  // the manager's own indicator is not visible yet
        let output = Output(scheduler: scheduler)
        manager!.addOutput(output)
        drawnLoad(in: manager!, output: output)
        manager = nil
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(output.drawn == [true, false])
    }

    /// A long load ends: "Loading complete". Its manager deallocated mid-load (the screen's
    /// scope let go) ends nothing: the overlay goes, and VoiceOver hears no completion.
    @Test(arguments: [false, true])
    func onlyALoadThatEndsIsAnnouncedComplete(managerGoes: Bool) {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler, voiceOver: true)
        manager!.addOutput(output)
        drawnLoad(in: manager!, output: output)
        scheduler.advance(by: 6)  // past the 5 s threshold
        if managerGoes { manager = nil } else { manager!.popNetworkActivity() }
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(output.drawn == [true, false])
        #expect(output.announced == (managerGoes ? [.started] : [.started, .finished]))
        withExtendedLifetime(manager) {}
    }

    @Test func aBarShowsOnlyWhileEverythingRunningIsMeasured() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        let progress = Progress(totalUnitCount: 100)
        progress.completedUnitCount = 40
        let download = manager.beganNetworkTask(label: "Download", progress: progress)
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(output.shown.last == OverlayProgress(fractionCompleted: 0.4))
        manager.pushNetworkActivity()  // a request of unknown size joins; the fraction stays 0.4
        scheduler.runPendingWork()
        scheduler.advance(by: 0.1)
        #expect(output.shown.last == .indeterminate)
        manager.popNetworkActivity()
        scheduler.runPendingWork()
        #expect(output.shown.last == OverlayProgress(fractionCompleted: 0.4), "measured again")
        withExtendedLifetime(download) {}
    }

    /// An overlay output follows one manager: added to a second, it leaves the first, so that
    /// their counts never mix (the first's end of load would otherwise erase the second's).
    @Test func addingTheOutputToASecondManagerMovesIt() {
        let first = NetworkIndicatorManager(scheduler: scheduler)
        let second = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        first.addOutput(output)
        drawnLoad(in: first, output: output)
        second.addOutput(output)
        #expect(output.drawn == [true, false], "erased at once, as removeOutput does")
        #expect(first.outputs.isEmpty)
        #expect(second.outputs.count == 1)
        second.pushNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
        #expect(output.drawn == [true, false, true], "the second manager's load")
        first.popNetworkActivity()  // the first manager's load ends: nothing to the overlay
        first.pushNetworkActivity()
        first.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 5)
        #expect(output.drawn == [true, false, true], "only the second manager's count")
    }

    @Test func addingTheOutputToItsManagerAgainKeepsTheOverlay() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let output = Output(scheduler: scheduler)
        manager.addOutput(output)
        drawnLoad(in: manager, output: output)
        manager.addOutput(output)
        scheduler.runPendingWork()
        #expect(output.drawn == [true])
        #expect(manager.outputs.count == 1)
    }
}
