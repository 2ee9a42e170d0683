import Dispatch
import Foundation

/// The default diagnostics handler's writer: writes the first of identical diagnostics at once,
/// counts the identical ones that follow within ``window`` seconds, and then writes one line
/// for them ("… repeated 999 times in 1 s"), so that a loop of bad finishes prints two lines,
/// not a thousand.
///
/// Identical means the same text (kind and label). Each distinct diagnostic has its own window,
/// from its first report to the scheduled close, so interleaved diagnostics are each written
/// once and summed up once. Safe from any thread; the write and the scheduling happen after its
/// lock is released.
final class DiagnosticsCoalescer: Sendable {
    /// Seconds during which identical diagnostics are counted instead of written.
    static let window: TimeInterval = 1

    private let write: @Sendable (String) -> Void
    private let closeLater: @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void
    /// The open windows: a diagnostic's text, and how many repeats it has had.
    private let repeats = LockedState<[String: Int]>([:])

    /// A coalescer that writes lines with `write` and closes a window by calling
    /// `closeLater(window, close)`: a global-queue timer in production (it must not depend on
    /// the main queue, which a synchronous `main` never runs), a manual one in tests.
    init(
        write: @escaping @Sendable (String) -> Void,
        closeLater: @escaping @Sendable (TimeInterval, @escaping @Sendable () -> Void) -> Void = { delay, close in
            DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: close)
        }
    ) {
        self.write = write
        self.closeLater = closeLater
    }

    /// Writes `diagnostic` if no identical one is in its window, and counts it otherwise.
    func report(_ diagnostic: NetworkIndicatorDiagnostic) {
        let text = diagnostic.description
        let isFirst = repeats.withLock { repeats in
            if let count = repeats[text] {
                repeats[text] = count + 1
                return false
            }
            repeats[text] = 0
            return true
        }
        guard isFirst else { return }
        write("NetworkIndicator: \(text)\n")
        closeLater(Self.window) { [self] in close(text) }
    }

    /// Ends the window of `text`: writes how many repeats it had, if any.
    private func close(_ text: String) {
        let count = repeats.withLock { $0.removeValue(forKey: text) } ?? 0
        guard count > 0 else { return }
        let times = count == 1 ? "once" : "\(count) times"
        write("NetworkIndicator: … repeated \(times) in \(Int(Self.window)) s: \(text)\n")
    }
}
