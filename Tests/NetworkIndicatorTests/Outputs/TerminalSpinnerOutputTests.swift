import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Terminal spinner")
struct TerminalSpinnerOutputTests {
    private let written = LockedState<[String]>([])
    private let scheduler = ManualNetworkIndicatorScheduler()

    private func spinner(isTerminal: Bool = true, forced: Bool = false) -> TerminalSpinnerOutput {
        TerminalSpinnerOutput(
            destination: .init(isTerminal: isTerminal) { [written] text in written.withLock { $0.append(text) } },
            drawsWhenNotATerminal: forced,
            frames: ["-", "\\", "|", "/"],
            frameInterval: 0.1,
            scheduler: scheduler
        )
    }

    private var output: [String] { written.withLock { $0 } }

    @Test func drawsWhileVisibleAndErasesOnHide() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(output == ["\r\u{1B}[2K- Loading"])
        scheduler.advance(by: 0.2)
        #expect(output.suffix(2) == ["\r\u{1B}[2K\\ Loading", "\r\u{1B}[2K| Loading"])
        spinner.networkIndicatorVisibilityDidChange(false)
        #expect(output.last == "\r\u{1B}[2K")
        #expect(!spinner.isSpinning)
        let count = output.count
        scheduler.advance(by: 1)
        #expect(output.count == count, "no frames after the hide")
        #expect(scheduler.pendingWorkCount == 0)
    }

    @Test func aSpinnerDeallocatedWhileSpinningErasesItsLine() {
        var spinner: TerminalSpinnerOutput? = spinner()
        spinner!.networkIndicatorVisibilityDidChange(true)
        spinner = nil
        #expect(output == ["\r\u{1B}[2K- Loading", "\r\u{1B}[2K"])
        #expect(scheduler.pendingWorkCount == 0)
    }

    @Test func drawsNothingWhenNotATerminal() {
        let spinner = spinner(isTerminal: false)
        spinner.networkIndicatorVisibilityDidChange(true)
        scheduler.advance(by: 1)
        spinner.networkIndicatorVisibilityDidChange(false)
        #expect(output.isEmpty)
        #expect(scheduler.scheduledTimerCount == 0)
    }

    @Test func drawsToAPipeWhenTold() {
        let spinner = spinner(isTerminal: false, forced: true)
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(output == ["\r\u{1B}[2K- Loading"])
    }

    @Test func printedLinesGoAboveTheSpinner() {
        let spinner = spinner()
        spinner.printLine("before")
        spinner.networkIndicatorVisibilityDidChange(true)
        spinner.printLine("fetched /a")
        #expect(output == ["before\n", "\r\u{1B}[2K- Loading", "\r\u{1B}[2Kfetched /a\n", "\r\u{1B}[2K- Loading"])
    }

    @Test func changingTheLabelRedraws() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        spinner.label = "Fetching 2 URLs"
        #expect(output.last == "\r\u{1B}[2K- Fetching 2 URLs")
    }

    @Test func drivenByAManager() {
        var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
        defer {
            // The released manager hands its outputs to the main queue; run that hop, or the
            // spinner (which holds this scheduler) and the scheduler keep each other alive.
            manager = nil
            scheduler.runPendingWork()
        }
        manager!.completionDelay = 0
        let spinner = spinner()
        manager!.addOutput(spinner)
        let token = manager!.beganNetworkTask()
        scheduler.runPendingWork()
        #expect(spinner.isSpinning)
        _ = consume token
        scheduler.runPendingWork()
        #expect(!spinner.isSpinning)
        #expect(output.first == "\r\u{1B}[2K- Loading")
        #expect(output.last == "\r\u{1B}[2K")
    }
}
