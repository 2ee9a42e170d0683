import Foundation
import NetworkIndicatorTesting
import Observation
import Testing

@testable import NetworkIndicator

/// The model, the stream and outputs that ask for the fraction.
@MainActor
@Suite("Progress outputs")
struct ProgressOutputTests {
    private let scheduler = ManualNetworkIndicatorScheduler()
    private let manager: NetworkIndicatorManager

    init() {
        manager = NetworkIndicatorManager(scheduler: scheduler)
    }

    @Test func theModelFollowsTheFraction() {
        let model = NetworkIndicatorModel(manager: manager)
        #expect(model.fractionCompleted == nil)
        let download = Progress(totalUnitCount: 4)
        var token: NetworkActivityToken? = manager.beganNetworkTask(progress: download)
        download.completedUnitCount = 3
        scheduler.advance(by: 0.1)
        #expect(model.fractionCompleted == 0.75)
        token = nil
        scheduler.advance(by: 0.1)
        #expect(model.fractionCompleted == nil)
        withExtendedLifetime(token) {}
    }

    @Test func anOutputAddedTwiceHearsEachFractionOnce() {
        let output = FractionRecorder()
        manager.addOutput(output)
        manager.addOutput(output)
        let download = Progress(totalUnitCount: 4)
        let token = manager.beganNetworkTask(progress: download)
        download.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        #expect(output.fractions == [nil, 0.25])
        withExtendedLifetime(token) {}
    }

    @Test func aDetachedModelIsToldNothing() {
        let model = NetworkIndicatorModel(manager: manager)
        manager.removeOutput(model)
        let download = Progress(totalUnitCount: 4)
        let token = manager.beganNetworkTask(progress: download)
        download.completedUnitCount = 1
        scheduler.advance(by: 0.1)
        #expect(model.fractionCompleted == nil)
        withExtendedLifetime(token) {}
    }

    @Test func theSpinnerShowsAPercentageAfterItsLabel() {
        let written = LockedState<[String]>([])
        let spinner = TerminalSpinnerOutput(
            destination: .init(isTerminal: true) { text in written.withLock { $0.append(text) } },
            frames: ["-"],
            scheduler: scheduler
        )
        manager.addOutput(spinner)
        let download = Progress(totalUnitCount: 1000)
        let token = manager.beganNetworkTask(progress: download)
        scheduler.runPendingWork()
        download.completedUnitCount = 426
        scheduler.advance(by: 0.1)
        #expect(written.withLock { $0.last } == "\r\u{1B}[2K- Loading 42%")
        #expect(spinner.fractionCompleted == 0.426)
        withExtendedLifetime(token) {}
    }

    @Test func thePercentageRoundsDownSoThatOnlyDoneReadsAHundred() {
        #expect(TerminalSpinnerOutput.percentage(0.999) == " 99%")
        #expect(TerminalSpinnerOutput.percentage(1) == " 100%")
        #expect(TerminalSpinnerOutput.percentage(nil) == "")
    }

    /// 0.29 × 100 is 28.999999999999996 in binary floating point: the spinner still says 29 %,
    /// as the overlays do (they share `wholePercent(of:)`).
    @Test func aFractionWrittenAsWholePercentReadsAsThatPercent() {
        #expect(TerminalSpinnerOutput.percentage(0.29) == " 29%")
        #expect(TerminalSpinnerOutput.percentage(0.57) == " 57%")
        #expect(TerminalSpinnerOutput.percentage(-1) == " 0%")
        #expect(TerminalSpinnerOutput.percentage(1.5) == " 100%", "an overrun reads done, no more")
        #expect(TerminalSpinnerOutput.percentage(.nan) == "")
    }
}

/// An output that records each fraction it is told.
@MainActor
private final class FractionRecorder: NetworkIndicatorOutput {
    private(set) var fractions: [Double?] = []

    var receivesFractionCompleted: Bool { true }

    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}

    func networkIndicatorFractionCompletedDidChange(_ fractionCompleted: Double?) {
        fractions.append(fractionCompleted)
    }
}
