import Foundation
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

    /// The glyphs drawn so far, in order (each draw is an erase-line followed by glyph and label).
    private var glyphs: [String] {
        output.compactMap { line in
            line.hasSuffix(" Loading") ? String(line.dropFirst("\r\u{1B}[2K".count).prefix(1)) : nil
        }
    }

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

    /// "Its line is erased … when the spinner is removed from its manager" — a hidden spinner
    /// has no line: removing it writes nothing. (TerminalSpinnerOutput.swift:19)
    @Test func removingAHiddenSpinnerFromItsManagerWritesNothing() {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let spinner = spinner()
        manager.addOutput(spinner)
        manager.removeOutput(spinner)
        #expect(output.isEmpty)
    }

    /// "and when it is deallocated" — a hidden spinner deallocated writes nothing.
    /// (TerminalSpinnerOutput.swift:20)
    @Test func aSpinnerDeallocatedAfterItsHideWritesNothingMore() {
        var spinner: TerminalSpinnerOutput? = spinner()
        spinner!.networkIndicatorVisibilityDidChange(true)
        spinner!.networkIndicatorVisibilityDidChange(false)
        let count = output.count
        spinner = nil
        #expect(output.count == count)
    }

    /// "Shows fractionCompleted as a percentage after the label (redrawn at once while visible),
    /// or none for nil." (TerminalSpinnerOutput.swift:262)
    @Test func aFractionToldWhileHiddenDrawsNothingUntilTheSpinnerShows() {
        let spinner = spinner()
        spinner.networkIndicatorFractionCompletedDidChange(0.5)
        #expect(output.isEmpty)
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(output == ["\r\u{1B}[2K- Loading 50%"])
        spinner.networkIndicatorFractionCompletedDidChange(nil)
        #expect(output.last == "\r\u{1B}[2K- Loading")
    }

    @Test func drawsNothingWhenNotATerminal() {
        let spinner = spinner(isTerminal: false)
        spinner.networkIndicatorVisibilityDidChange(true)
        scheduler.advance(by: 1)
        spinner.networkIndicatorVisibilityDidChange(false)
        #expect(output.isEmpty)
        #expect(scheduler.scheduledTimerCount == 0)
    }

    @Test func byDefaultDrawsNothingWhenNotATerminal() {
        let spinner = TerminalSpinnerOutput(
            destination: .init(isTerminal: false) { [written] text in written.withLock { $0.append(text) } },
            scheduler: scheduler
        )
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(output.isEmpty)
        #expect(!spinner.isSpinning)
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

    /// A URLSession delegate prints from its own queue: the line is written whole, above the
    /// spinner's line, and the spinner is redrawn below it on the main queue.
    @Test func aLinePrintedFromAnotherThreadGoesAboveTheSpinner() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            spinner.printLine("finished c.bin: 5000000 bytes")
            done.signal()
        }
        done.wait()
        #expect(output.last == "\r\u{1B}[2Kfinished c.bin: 5000000 bytes\n", "one write: erased, the line, a newline")
        scheduler.runPendingWork()
        #expect(output.last == "\r\u{1B}[2K- Loading", "redrawn below")
    }

    @Test func aLinePrintedFromAnotherThreadIsPlainWhenNothingIsDrawn() {
        let spinner = spinner(isTerminal: false)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            spinner.printLine("done")
            done.signal()
        }
        done.wait()
        #expect(output == ["done\n"])
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
        manager!.settings.completionDelay = 0
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

    @Test func framesAdvanceOnceAFrameIntervalAndWrapAround() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        scheduler.advance(by: 0.05)
        #expect(glyphs == ["-"], "no frame before the interval has passed")
        scheduler.advance(by: 0.05)
        #expect(glyphs == ["-", "\\"])
        scheduler.advance(by: 0.35)
        #expect(glyphs == ["-", "\\", "|", "/", "-"], "after the last frame, the first")
    }

    @Test func theFrameTimerRepeatsEveryFrameIntervalWithATenthOfItAsLeeway() {
        let recorder = SchedulingRecorder()
        let spinner = TerminalSpinnerOutput(
            destination: .init(isTerminal: true) { _ in },
            frameInterval: 0.2,
            scheduler: recorder
        )
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(recorder.requests.count == 1)
        #expect(recorder.requests.first?.delay == 0.2)
        #expect(recorder.requests.first?.interval == 0.2)
        #expect(abs((recorder.requests.first?.leeway ?? -1) - 0.02) < 1e-9)
        spinner.networkIndicatorVisibilityDidChange(false)
    }

    @Test func aFrameIntervalUnderTenMillisecondsBecomesTenMilliseconds() {
        let spinner = TerminalSpinnerOutput(
            destination: .init(isTerminal: true) { [written] text in written.withLock { $0.append(text) } },
            frameInterval: 0.001,
            scheduler: scheduler
        )
        #expect(spinner.frameInterval == 0.01)
        spinner.networkIndicatorVisibilityDidChange(true)
        scheduler.advance(by: 0.009)
        #expect(output.count == 1, "no frame before 10 ms")
        scheduler.advance(by: 0.002)
        #expect(output.count == 2, "one frame by 11 ms")
        spinner.networkIndicatorVisibilityDidChange(false)
    }

    @Test func hidingCancelsTheFrameTimer() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(scheduler.pendingWorkCount == 1)
        spinner.networkIndicatorVisibilityDidChange(false)
        #expect(scheduler.pendingWorkCount == 0)
    }

    @Test func showingAgainStartsFromTheFirstFrame() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        scheduler.advance(by: 0.2)
        spinner.networkIndicatorVisibilityDidChange(false)
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(glyphs == ["-", "\\", "|", "-"])
        spinner.networkIndicatorVisibilityDidChange(false)
    }

    @Test func showingTwiceStartsOneTimer() {
        let spinner = spinner()
        spinner.networkIndicatorVisibilityDidChange(true)
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(scheduler.scheduledTimerCount == 1)
        #expect(output.count == 1, "drawn once")
        spinner.networkIndicatorVisibilityDidChange(false)
    }

    @Test func byDefaultTheSpinnerTurnsACircleOfTenBrailleDots() {
        let spinner = TerminalSpinnerOutput(
            destination: .init(isTerminal: true) { [written] text in written.withLock { $0.append(text) } },
            scheduler: scheduler
        )
        spinner.networkIndicatorVisibilityDidChange(true)
        scheduler.advance(by: 1.05)
        #expect(glyphs == ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏", "⠋"])
        spinner.networkIndicatorVisibilityDidChange(false)
    }

    @Test func emptyFramesAreReplacedByTheBrailleDots() {
        let spinner = TerminalSpinnerOutput(destination: .init(isTerminal: true) { _ in }, frames: [])
        #expect(spinner.frames == TerminalSpinnerOutput.brailleFrames)
    }

    /// Standard error is the descriptor destination for descriptor 2: it reads the process's
    /// state and changes none of it.
    @Test func standardErrorIsATerminalExactlyWhenDescriptorTwoIs() {
        #expect(TerminalSpinnerOutput.Destination.standardError.isTerminal == (isatty(STDERR_FILENO) == 1))
    }

    /// A pipe is not a terminal, and what the destination writes arrives through it whole.
    @Test func aPipeDescriptorIsNotATerminalAndIsWrittenTo() throws {
        let pipe = Pipe()
        let destination = TerminalSpinnerOutput.Destination.fileDescriptor(pipe.fileHandleForWriting.fileDescriptor)
        destination.write("spinner-probe")
        try pipe.fileHandleForWriting.close()
        #expect(!destination.isTerminal)
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "spinner-probe")
    }

    #if os(Linux)
    /// A pseudo-terminal's descriptor, given to the destination (standard error is never
    /// swapped, so parallel tests cannot write into it): it counts as a terminal, and what it
    /// writes reaches that terminal. Linux only: the pseudo-terminal is opened through Linux's
    /// `ioctl`s.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx")))
    func aTerminalDescriptorIsOneAndIsWrittenTo() throws {
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(controller >= 0)
        defer { close(controller) }
        var locked: Int32 = 0
        var number: UInt32 = 0
        let unlock: UInt = 0x4004_5431  // TIOCSPTLCK
        let getNumber: UInt = 0x8004_5430  // TIOCGPTN
        try #require(ioctl(controller, unlock, &locked) == 0)
        try #require(ioctl(controller, getNumber, &number) == 0)
        let terminal = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        defer { close(terminal) }

        let destination = TerminalSpinnerOutput.Destination.fileDescriptor(terminal)
        destination.write("spinner-probe")

        #expect(destination.isTerminal)
        // The terminal passes the text on to its controller asynchronously: wait up to 5 s for it.
        var ready = pollfd(fd: controller, events: Int16(POLLIN), revents: 0)
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = poll(&ready, 1, 5_000) == 1 ? read(controller, &buffer, buffer.count) : 0
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self).contains("spinner-probe"))
    }
    #endif

    @Test func changingTheLabelWhileHiddenDrawsNothing() {
        let spinner = spinner()
        spinner.label = "Fetching"
        #expect(output.isEmpty)
    }

    @Test func aFrameIntervalThatIsNotANumberBecomesTenMilliseconds() {
        let spinner = TerminalSpinnerOutput(
            destination: .init(isTerminal: true) { _ in },
            frameInterval: .nan,
            scheduler: scheduler
        )
        #expect(spinner.frameInterval == 0.01)
    }
}
