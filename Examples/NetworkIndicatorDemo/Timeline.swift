import Foundation

/// Prints timestamped lines relative to the demo's start; safe from any thread.
final class Timeline: Sendable {
    private let start = Date()
    private let lock = NSLock()

    /// Seconds since the timeline was created.
    var elapsed: TimeInterval {
        Date().timeIntervalSince(start)
    }

    /// Prints `message` after the time since the start.
    func log(_ message: String) {
        write(String(format: "[%6.2f s] ", elapsed) + message)
    }

    /// Prints `text` as it is, in order with the timestamped lines (unbuffered, unlike `print`).
    func write(_ text: String) {
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Sleeps, without blocking a thread, until `seconds` after the start (so that waits do not
    /// add up their drift).
    func sleep(until seconds: TimeInterval) async {
        let remaining = seconds - elapsed
        if remaining > 0 { await pause(remaining) }
    }
}
