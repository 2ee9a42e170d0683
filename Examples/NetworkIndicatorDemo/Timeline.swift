import Foundation

/// Prints timestamped lines relative to the demo's start; safe from any thread.
final class Timeline: Sendable {
    private let start = Date()
    private let lock = NSLock()

    func log(_ message: String) {
        let elapsed = Date().timeIntervalSince(start)
        lock.lock()
        defer { lock.unlock() }
        FileHandle.standardOutput.write(Data((String(format: "[%6.2f s] ", elapsed) + message + "\n").utf8))
    }
}
