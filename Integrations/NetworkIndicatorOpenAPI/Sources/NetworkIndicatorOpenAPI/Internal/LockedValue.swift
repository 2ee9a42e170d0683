import Foundation

/// One value behind one non-recursive lock, reachable only through ``withLock(_:)`` so that
/// nobody can forget to take it. The root package's own box is `package`-internal, so this
/// package keeps a small one of its own.
///
/// Never call code you do not own while holding the lock.
final class LockedValue<Value> {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value, under the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

// Safe: `value` is read and written only inside `withLock`, under `lock`, and crosses threads
// only when it is itself `Sendable`.
extension LockedValue: @unchecked Sendable where Value: Sendable {}
