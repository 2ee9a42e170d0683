import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A command-line tool whose standard error is closed (`mytool 2>&-`) or a pipe that fails: the
/// spinner and the default diagnostics handler write to it, and the writes are lost, never
/// crashing the tool. Descriptor -1 stands for such a destination: no open file can have it, so
/// no other test's file receives the writes.
@MainActor
@Suite("Writing to a broken destination")
struct BrokenDestinationTests {
    private static let broken: Int32 = -1

    @Test func aSpinnerOnABrokenDescriptorLosesItsWrites() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let spinner = TerminalSpinnerOutput(
            destination: .fileDescriptor(Self.broken),
            drawsWhenNotATerminal: true,
            scheduler: scheduler
        )
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(spinner.isSpinning)
        spinner.printLine("fetched 6 bytes")
        scheduler.advance(by: 0.1)
        spinner.networkIndicatorVisibilityDidChange(false)
        #expect(!spinner.isSpinning)
    }

    @Test func aLinePrintedThroughASpinnerThatDoesNotDrawIsLost() {
        let spinner = TerminalSpinnerOutput(
            destination: .fileDescriptor(Self.broken),
            scheduler: ManualNetworkIndicatorScheduler()
        )
        spinner.networkIndicatorVisibilityDidChange(true)
        #expect(!spinner.isSpinning, "not a terminal: nothing drawn")
        spinner.printLine("fetched 6 bytes")
    }

    @Test func theDefaultHandlerLosesAReportItCannotWrite() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        manager.diagnosticsHandler = NetworkIndicatorManager.diagnosticsHandler(
            writingTo: FileHandle(fileDescriptor: Self.broken, closeOnDealloc: false)
        )
        manager.popNetworkActivity()  // misuse, reported
        #expect(manager.activeTaskCount == 0)
    }
}
