public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// Unsafe code in this file: one `UnsafePointer<UInt8>`, the UTF-8 bytes of a `String` handed to
// `write(2)` in `send(_:to:)`. Why it is correct: the pointer comes from `String.withUTF8`, is
// used only inside that closure, and never past `count` bytes (each write advances it by what
// was written). It is not a speed trick: `write(2)` takes a pointer, and `FileHandle.write(_:)`
// traps on a closed descriptor on Linux.

/// A one-line spinner for command-line tools: `⠋ Loading` on standard error while the indicator
/// is visible; `⠋ Loading 42%` while the manager knows a
/// ``NetworkIndicatorManager/progressSnapshot()``, from the next poll of the fraction (at most
/// 0.1 s later, as every output that wants it is told). Its line is erased (the cursor left at the
/// start of an empty line) when the indicator hides, when the spinner is removed from its
/// manager (``NetworkIndicatorManager/removeOutput(_:)``), and when it is deallocated.
///
/// ```swift
/// let spinner = TerminalSpinnerOutput(label: "Fetching")
/// manager.addOutput(spinner)
/// spinner.printLine("fetched \(url)")   // prints above the spinner instead of through it
/// try await manager.waitUntilIdle()
/// manager.removeOutput(spinner)          // erases the line now, not after completionDelay
/// print(summary)                         // standard output starts on a clean line
/// ```
///
/// It writes to standard error by default, so that `mytool > out.txt` keeps the spinner out of
/// the file (and the file out of the spinner). The indicator hides only after the manager's
/// ``NetworkIndicatorSettings/completionDelay``: remove the spinner before writing your results
/// to standard output, or they may land on its line until then.
///
/// It draws only when its destination is a terminal (so redirected logs stay clean), redraws its
/// line in place with a carriage return and an erase-line sequence, and animates on the main
/// queue through its scheduler. Lines you write elsewhere to the same terminal while it spins
/// share its line until the next frame; print them through ``printLine(_:)``, from any thread,
/// to keep both intact. Everything else is main actor only.
@MainActor
public final class TerminalSpinnerOutput: NetworkIndicatorOutput, RemovalAwareOutput {
    /// Where the spinner writes, and whether that is an interactive terminal.
    public struct Destination: Sendable {
        /// Whether the destination is an interactive terminal; the spinner draws nothing if not.
        public var isTerminal: Bool
        /// Writes text as it is, without adding a newline.
        public var write: @Sendable (String) -> Void
        /// The file descriptor written to, if made by `fileDescriptor(_:)`: the default
        /// diagnostics handler prints above a spinner that spins on its own descriptor.
        var fileDescriptor: Int32?

        /// Creates a destination, for instance a recording one in tests.
        public init(isTerminal: Bool, write: @escaping @Sendable (String) -> Void) {
            self.isTerminal = isTerminal
            self.write = write
        }

        /// Standard error; a terminal if `isatty(2)` says so.
        public static var standardError: Destination { fileDescriptor(STDERR_FILENO) }

        /// An open file descriptor; a terminal if `isatty` says so when the destination is made.
        /// The descriptor is borrowed, not owned. Writes to a closed or invalid descriptor are
        /// lost silently (such a descriptor is never a terminal, so the spinner does not draw).
        static func fileDescriptor(_ descriptor: Int32) -> Destination {
            var destination = Destination(isTerminal: isatty(descriptor) == 1) { text in
                SpinningTerminals.send(text, to: descriptor)
            }
            destination.fileDescriptor = descriptor
            return destination
        }
    }

    /// The text after the spinner glyph. Changing it redraws the line while visible.
    public var label: String {
        didSet { if isSpinning { draw() } }
    }

    /// The glyphs drawn in turn, one per frame.
    let frames: [String]
    /// The default frames: a turning circle of Braille dots.
    nonisolated static let brailleFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    /// Seconds between frames.
    let frameInterval: TimeInterval
    /// Whether the spinner is currently drawn: set on the main actor, read from any thread by
    /// ``printLine(_:)``, which erases a line only if the spinner's is there.
    private(set) var isSpinning: Bool {
        get { spinning.withLock { $0 } }
        set { spinning.withLock { $0 = newValue } }
    }
    private nonisolated let spinning = LockedState(false)
    /// The fraction shown as a percentage after the label; `nil` shows none. Set by the manager
    /// (see ``networkIndicatorFractionCompletedDidChange(_:)``).
    private(set) var fractionCompleted: Double?

    private nonisolated let destination: Destination
    private nonisolated let isDrawing: Bool
    private nonisolated let scheduler: any NetworkIndicatorScheduler
    private var frameIndex = 0
    private var timer: (any NetworkIndicatorTimer)?

    nonisolated static let eraseLine = "\r\u{1B}[2K"

    /// Creates a spinner.
    ///
    /// - Parameters:
    ///   - label: The text after the glyph; "Loading" by default.
    ///   - destination: Where to draw; standard error by default.
    ///   - drawsWhenNotATerminal: Draw even if `destination` is not a terminal (default `false`:
    ///     a pipe or file gets nothing).
    ///   - frames: The glyphs to cycle through; an empty array (the default) draws a turning
    ///     circle of Braille dots.
    ///   - frameInterval: Seconds between frames (default 0.1; values under 0.01, or not a
    ///     number, become 0.01).
    ///   - scheduler: Drives the animation; the main queue by default.
    public init(
        label: String = "Loading",
        destination: Destination = .standardError,
        drawsWhenNotATerminal: Bool = false,
        frames: [String] = [],
        frameInterval: TimeInterval = 0.1,
        scheduler: any NetworkIndicatorScheduler = MainQueueScheduler()
    ) {
        self.label = label
        self.destination = destination
        self.isDrawing = destination.isTerminal || drawsWhenNotATerminal
        self.frames = frames.isEmpty ? Self.brailleFrames : frames
        self.frameInterval = frameInterval >= 0.01 ? frameInterval : 0.01
        self.scheduler = scheduler
    }

    deinit {
        timer?.cancel()
        guard spinning.withLock({ $0 }) else { return }
        destination.write(Self.eraseLine)
        // As at a stop: another spinner on the same descriptor is drawn again at once.
        let spinsOn = destination.fileDescriptor.flatMap { SpinningTerminals.set(self, isSpinning: false, on: $0) }
        spinsOn?.redrawOnMainQueue()
    }

    /// Starts or stops the spinner; stopping erases its line.
    public func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {
        guard isDrawing, isVisible != isSpinning else { return }
        // Another spinner that spins on the same descriptor (the next phase's, another
        // manager's), drawn again once this one's line is erased.
        let spinsOn = destination.fileDescriptor.flatMap { SpinningTerminals.set(self, isSpinning: isVisible, on: $0) }
        if isVisible {
            isSpinning = true
            frameIndex = 0
            draw()
            timer = scheduler.schedule(after: frameInterval, repeating: frameInterval, leeway: frameInterval / 10) {
                [weak self] in
                self?.advanceFrame()
            }
        } else {
            timer?.cancel()
            timer = nil
            // Erased before it says it stopped: a line printed from another thread meanwhile
            // erases the frame too.
            destination.write(Self.eraseLine)
            isSpinning = false
            spinsOn?.redraw()
        }
    }

    /// Removed from its manager, which tells it nothing more: stops, and erases its line.
    func networkIndicatorOutputWasRemoved() {
        networkIndicatorVisibilityDidChange(false)
    }

    /// Writes `line` and a newline to the spinner's destination without garbling either: the
    /// spinner is erased first and redrawn below the line. Works (as a plain write) when the
    /// spinner is not drawing.
    ///
    /// Safe from any thread (a URLSession delegate's queue, say). On the main queue the line and
    /// the redraw happen at once; elsewhere the line is one write, erasing whatever frame is
    /// drawn, and the spinner is redrawn below it on the main queue, through its scheduler.
    public nonisolated func printLine(_ line: String) {
        guard MainQueue.isCurrent else {
            // One write, so that no frame lands inside it, made under the lock that a start
            // (before its first frame) and a stop (after its erase) change the state by: it
            // erases a frame exactly when one may be drawn.
            let erases = spinning.withLock { isSpinning in
                destination.write(isSpinning ? Self.eraseLine + line + "\n" : line + "\n")
                return isSpinning
            }
            if erases { redrawOnMainQueue() }
            return
        }
        MainActor.assumeIsolated { printLineOnMainQueue(line) }
    }

    /// Draws the current frame again, if spinning: at once on the main queue, else there
    /// through the scheduler.
    private nonisolated func redrawOnMainQueue() {
        guard MainQueue.isCurrent else {
            scheduler.enqueue { [weak self] in self?.redraw() }
            return
        }
        MainActor.assumeIsolated { redraw() }
    }

    /// ``printLine(_:)`` on the main queue.
    private func printLineOnMainQueue(_ line: String) {
        guard isSpinning else {
            destination.write(line + "\n")
            return
        }
        destination.write(Self.eraseLine + line + "\n")
        draw()
    }

    /// Draws the current frame again, if spinning: after a line printed from another thread, or
    /// another spinner's erase.
    private func redraw() {
        if isSpinning { draw() }
    }

    private func advanceFrame() {
        guard isSpinning else { return }
        frameIndex = (frameIndex + 1) % frames.count
        draw()
    }

    private func draw() {
        destination.write(Self.eraseLine + frames[frameIndex] + " " + label + Self.percentage(fractionCompleted))
    }

    /// The spinner shows progress, so it asks for it.
    public var receivesFractionCompleted: Bool { true }

    /// Shows `fractionCompleted` as a percentage after the label (redrawn at once while
    /// visible), or none for `nil`.
    public func networkIndicatorFractionCompletedDidChange(_ fractionCompleted: Double?) {
        guard fractionCompleted != self.fractionCompleted else { return }
        self.fractionCompleted = fractionCompleted
        if isSpinning { draw() }
    }

    /// " 42%": rounded down, so that 100 % means done.
    nonisolated static func percentage(_ fraction: Double?) -> String {
        guard let percent = wholePercent(of: fraction) else { return "" }
        return " \(percent)%"
    }
}

/// The spinners drawing on each file descriptor, so that the default diagnostics handler, which
/// writes from any thread, prints on a line of its own instead of through a spinner's: above the
/// one started last (the next phase's spinner added before the last one is removed; two
/// managers' on one terminal), which a stopping spinner draws again after erasing its line.
enum SpinningTerminals {
    private struct Spinner: Sendable {
        weak var output: TerminalSpinnerOutput?
    }

    /// The spinners that spin on each descriptor, the latest started last.
    private static let spinners = LockedState<[Int32: [Spinner]]>([:])

    /// `spinner` starts or stops spinning on `descriptor`. Returns the spinner that spins there
    /// last once it stopped, if another does.
    @discardableResult
    static func set(_ spinner: TerminalSpinnerOutput, isSpinning: Bool, on descriptor: Int32) -> TerminalSpinnerOutput?
    {
        var loaded: [TerminalSpinnerOutput] = []
        let spinsOn = spinners.withLock { spinners in
            var list: [Spinner] = []
            for entry in spinners[descriptor, default: []] {
                guard let output = entry.output else { continue }
                loaded.append(output)  // released after the lock
                if output !== spinner { list.append(entry) }
            }
            if isSpinning { list.append(Spinner(output: spinner)) }
            spinners[descriptor] = list.isEmpty ? nil : list
            return isSpinning ? nil : list.last?.output
        }
        withExtendedLifetime(loaded) {}
        return spinsOn
    }

    /// Writes the line `text` (ending in a newline) to `descriptor` without garbling a spinner
    /// on it, through the spinner's ``TerminalSpinnerOutput/printLine(_:)`` (erased, the line,
    /// redrawn below). Safe from any thread.
    static func write(line text: String, to descriptor: Int32) {
        // The last that lives: one released off the main queue may be listed until its `deinit`.
        var loaded: [TerminalSpinnerOutput] = []
        let found = spinners.withLock { spinners -> TerminalSpinnerOutput? in
            for entry in (spinners[descriptor] ?? []).reversed() {
                guard let output = entry.output else { continue }
                loaded.append(output)
                return output
            }
            return nil
        }
        withExtendedLifetime(loaded) {}
        guard let spinner = found else {
            send(text, to: descriptor)
            return
        }
        spinner.printLine(text.hasSuffix("\n") ? String(text.dropLast()) : text)
    }

    /// Writes all of `text` to `descriptor`, again after an interrupted write. A write that
    /// fails (a closed or invalid descriptor, a pipe whose reader went while `SIGPIPE` is
    /// ignored) is lost silently: a tool whose standard error is closed (`2>&-`) runs on.
    /// Not `FileHandle.write(_:)`, which traps on such an error on Linux (and raises an
    /// Objective-C exception on Apple platforms).
    static func send(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            guard var next = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = systemWrite(descriptor, next, left)
                if written > 0 {
                    next += written
                    left -= written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}

/// The C library's `write(2)`, out of reach of `SpinningTerminals.write(line:to:)`'s name.
private func systemWrite(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
