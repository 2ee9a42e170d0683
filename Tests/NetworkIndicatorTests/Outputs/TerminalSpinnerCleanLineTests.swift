import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command-line tool's last lines: whatever it writes after its spinner is removed or its
/// indicator hides starts on a clean line, read through a real file descriptor (a pipe) the way
/// a terminal would show it.
@MainActor
@Suite("Terminal spinner leaves a clean line")
struct TerminalSpinnerCleanLineTests {
    private let scheduler = ManualNetworkIndicatorScheduler()

    @Test func removingTheSpinnerWhileItSpinsErasesItsLine() throws {
        let pipe = try Pipe()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let spinner = spinner(writingTo: pipe)
        manager.addOutput(spinner)
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        #expect(spinner.isSpinning)
        manager.removeOutput(spinner)
        #expect(!spinner.isSpinning)
        pipe.send("0 active task(s)\n")  // as the tool's `print` would, on the same terminal
        #expect(try pipe.screen() == ["0 active task(s)", ""])
        scheduler.advance(by: 1)
        #expect(try pipe.screen() == ["0 active task(s)", ""], "no frame drawn after the removal")
        withExtendedLifetime(token) {}
    }

    @Test func hidingTheIndicatorErasesTheLine() throws {
        let pipe = try Pipe()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.completionDelay = 0
        let spinner = spinner(writingTo: pipe)
        manager.addOutput(spinner)
        var token: NetworkActivityToken? = manager.beganNetworkTask()
        scheduler.runPendingWork()
        #expect(try pipe.screen() == ["- Fetching"])
        token = nil
        scheduler.runPendingWork()
        pipe.send("done\n")
        #expect(try pipe.screen() == ["done", ""])
        _ = token
    }

    @Test func removingItFromAManagerItIsNotAttachedToLeavesItSpinning() throws {
        let pipe = try Pipe()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let other = NetworkIndicatorManager(scheduler: scheduler)
        let spinner = spinner(writingTo: pipe)
        manager.addOutput(spinner)
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        other.removeOutput(spinner)
        #expect(spinner.isSpinning)
        #expect(try pipe.screen() == ["- Fetching"])
        withExtendedLifetime(token) {}
    }

    /// A tool's own text, its line not yet ended, then a line printed from another thread while
    /// no task runs: nothing is erased, as on the main queue.
    @Test func aLinePrintedFromAnotherThreadWhileNothingSpinsErasesNothing() async throws {
        let pipe = try Pipe()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let spinner = spinner(writingTo: pipe)
        manager.addOutput(spinner)
        scheduler.runPendingWork()
        pipe.send("fetched: ")
        await Task.detached { spinner.printLine("42 items") }.value
        scheduler.runPendingWork()
        #expect(try pipe.screen() == ["fetched: 42 items", ""])
    }

    // MARK: - The package's own reports

    /// Two managers' spinners on one terminal: the later one is deallocated while it spins
    /// (its manager held it weakly), and the one that spins on is drawn again at once, not
    /// left erased until its next frame.
    @Test func aSpinnerDeallocatedWhileItSpinsDrawsTheOneThatSpinsOnAtOnce() throws {
        let pipe = try Pipe()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let first = spinner(writingTo: pipe)
        manager.addOutput(first)
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        let other = NetworkIndicatorManager(scheduler: scheduler)
        var second: TerminalSpinnerOutput? = spinner(writingTo: pipe, label: "Saving")
        other.addOutput(second!)
        let otherToken = other.beganNetworkTask()
        scheduler.runPendingWork()
        #expect(try pipe.screen() == ["- Saving"])
        second = nil
        #expect(try pipe.screen() == ["- Fetching"], "the spinner that spins on, drawn again at once")
        withExtendedLifetime((first, token, otherToken)) {}
    }

    #if DEBUG
    /// The report of a pop without a push, as the default handler writes it.
    private static let report = "NetworkIndicator: popNetworkActivity() with no push outstanding; ignored"

    /// A manager whose default diagnostics handler writes to `pipe` (standard error, in a tool),
    /// with a spinner spinning there: a task is open. Keep the spinner (held weakly by the
    /// manager) and the task's token.
    private func spinningWithReports(
        on pipe: Pipe
    ) -> (NetworkIndicatorManager, TerminalSpinnerOutput, NetworkActivityToken) {
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.diagnosticsHandler = NetworkIndicatorManager.diagnosticsHandler(
            writingTo: FileHandle(fileDescriptor: pipe.writeEnd, closeOnDealloc: false)
        )
        let spinner = spinner(writingTo: pipe)
        manager.addOutput(spinner)
        let token = manager.beganNetworkTask()
        scheduler.runPendingWork()
        return (manager, spinner, token)
    }

    @Test func aReportOnTheMainQueuePrintsAboveTheSpinner() throws {
        let pipe = try Pipe()
        let (manager, spinner, token) = spinningWithReports(on: pipe)
        manager.popNetworkActivity()  // reported: no push outstanding
        #expect(try pipe.screen() == [Self.report, "- Fetching"])
        withExtendedLifetime((spinner, token)) {}
    }

    @Test func aReportFromAnotherThreadGetsALineOfItsOwnAndTheSpinnerComesBack() async throws {
        let pipe = try Pipe()
        let (manager, spinner, token) = spinningWithReports(on: pipe)
        await Task.detached { manager.popNetworkActivity() }.value
        #expect(try pipe.screen() == [Self.report, ""])
        scheduler.advance(by: 0.1)  // the next frame
        #expect(try pipe.screen() == [Self.report, "\\ Fetching"])
        withExtendedLifetime((spinner, token)) {}
    }

    @Test func withTheSpinnerRemovedAReportErasesNothing() async throws {
        let pipe = try Pipe()
        let (manager, spinner, token) = spinningWithReports(on: pipe)
        manager.removeOutput(spinner)
        pipe.send("fetched: ")  // the tool's own text, its line not yet ended
        await Task.detached { manager.popNetworkActivity() }.value
        #expect(try pipe.screen() == ["fetched: " + Self.report, ""])
        withExtendedLifetime(token) {}
    }

    /// A tool swaps its spinner for the next phase's, adding the new one before removing the
    /// old: the new one stays drawn, and a report prints above it.
    @Test func aSpinnerAddedBeforeTheOldOneIsRemovedKeepsItsLine() throws {
        let pipe = try Pipe()
        let (manager, old, token) = spinningWithReports(on: pipe)
        let next = spinner(writingTo: pipe, label: "Saving")
        manager.addOutput(next)
        manager.removeOutput(old)
        #expect(try pipe.screen() == ["- Saving"], "the old spinner's erase does not leave a blank line")
        manager.popNetworkActivity()
        #expect(try pipe.screen() == [Self.report, "- Saving"])
        withExtendedLifetime((old, next, token)) {}
    }

    /// Two managers' spinners on one terminal: the later one stops first, and a report still
    /// prints above the one that spins on.
    @Test func aReportPrintsAboveTheSpinnerThatSpinsOnWhenAnotherStops() throws {
        let pipe = try Pipe()
        let (manager, first, token) = spinningWithReports(on: pipe)
        let other = NetworkIndicatorManager(scheduler: scheduler)
        let second = spinner(writingTo: pipe, label: "Saving")
        other.addOutput(second)
        var otherToken: NetworkActivityToken? = other.beganNetworkTask()
        scheduler.runPendingWork()
        otherToken = nil
        scheduler.advance(by: 1)  // past the completion delay
        #expect(!second.isSpinning)
        manager.popNetworkActivity()
        let screen = try pipe.screen()
        #expect(screen.dropLast().last == Self.report)
        #expect(screen.last?.hasSuffix(" Fetching") == true, "the first spinner, drawn below the report")
        withExtendedLifetime((first, second, token, otherToken)) {}
    }

    /// The same when the later spinner is deallocated while it spins (its manager held it
    /// weakly): reports print above the one that spins on.
    @Test func aReportPrintsAboveTheSpinnerThatSpinsOnWhenAnotherIsDeallocated() throws {
        let pipe = try Pipe()
        let (manager, first, token) = spinningWithReports(on: pipe)
        let other = NetworkIndicatorManager(scheduler: scheduler)
        var second: TerminalSpinnerOutput? = spinner(writingTo: pipe, label: "Saving")
        other.addOutput(second!)
        let otherToken = other.beganNetworkTask()
        scheduler.runPendingWork()
        second = nil
        scheduler.advance(by: 0.1)  // the first spinner's next frame
        manager.popNetworkActivity()
        let screen = try pipe.screen()
        #expect(screen.dropLast().last == Self.report)
        #expect(screen.last?.hasSuffix(" Fetching") == true, "the first spinner, drawn below the report")
        withExtendedLifetime((first, token, otherToken)) {}
    }
    #endif

    private func spinner(writingTo pipe: Pipe, label: String = "Fetching") -> TerminalSpinnerOutput {
        TerminalSpinnerOutput(
            label: label,
            destination: .fileDescriptor(pipe.writeEnd),
            drawsWhenNotATerminal: true,
            frames: ["-", "\\", "|", "/"],
            scheduler: scheduler
        )
    }
}

/// A pipe whose read end never blocks, and a reading of what it received as a terminal would
/// show it.
private final class Pipe {
    let readEnd: Int32
    let writeEnd: Int32
    private var received: [UInt8] = []

    init() throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw POSIXError(.EMFILE) }
        (readEnd, writeEnd) = (ends[0], ends[1])
        _ = fcntl(readEnd, F_SETFL, fcntl(readEnd, F_GETFL) | O_NONBLOCK)
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { write(writeEnd, $0.baseAddress, $0.count) }
    }

    /// The lines a terminal shows for everything written so far: a carriage return moves to the
    /// line's start, `ESC [2K` clears the line, other characters overwrite from the cursor.
    func screen() throws -> [String] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while case let count = read(readEnd, &buffer, buffer.count), count > 0 {
            received += buffer[0..<count]
        }
        var lines: [String] = []
        var line: [Character] = []
        var cursor = 0
        var characters = Substring(String(decoding: received, as: UTF8.self))
        while let character = characters.first {
            if characters.hasPrefix("\u{1B}[2K") {
                line = []
                characters = characters.dropFirst(4)
                continue
            }
            characters = characters.dropFirst()
            switch character {
            case "\r": cursor = 0
            case "\n":
                lines.append(String(line))
                (line, cursor) = ([], 0)
            default:
                while line.count < cursor { line.append(" ") }
                if cursor < line.count { line[cursor] = character } else { line.append(character) }
                cursor += 1
            }
        }
        return lines + [String(line)]
    }
}
