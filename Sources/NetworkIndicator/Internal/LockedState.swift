#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// All of a component's mutable state behind one non-recursive lock, reachable only through
/// ``withLock(_:)`` so that nobody can forget to take it (the shape of swift-nio's
/// `NIOLockedValueBox`).
///
/// The lock is the cheapest the platform offers without an availability check: `os_unfair_lock`
/// on Apple platforms (all supported releases) and a plain `pthread_mutex_t` elsewhere.
/// The state lives at a stable heap address, so it is mutated in place without runtime
/// exclusivity checks.
///
/// Never call code you do not own while holding the lock: the lock is not recursive.
///
/// `package`, not `internal`: the `NetworkIndicatorTesting` target's manual scheduler keeps its
/// state in the same box.
///
/// The box is `Sendable` only when its state is (see the conformance below): a state that is
/// not `Sendable` must say itself why it may cross threads.
package final class LockedState<State> {
    #if canImport(Darwin)
    private typealias Primitive = os_unfair_lock
    #else
    private typealias Primitive = pthread_mutex_t
    #endif

    private let lock: UnsafeMutablePointer<Primitive>
    private let state: UnsafeMutablePointer<State>

    /// Creates the box holding `initialState`.
    package init(_ initialState: State) {
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
        state = .allocate(capacity: 1)
        state.initialize(to: initialState)
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&state.pointee)
    }
}

/// `@unchecked` because the compiler cannot see the lock: the box only hands out its state
/// inside ``LockedState/withLock(_:)``, with the lock held, so a `Sendable` state is never
/// reached from two threads at once. (As swift-nio's `NIOLockedValueBox`.)
extension LockedState: @unchecked Sendable where State: Sendable {}
