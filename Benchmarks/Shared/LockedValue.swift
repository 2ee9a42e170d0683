// The one lock box of the benchmark package. The benchmark suite, the profiling executable and
// the reference implementations in this target all use it; nothing else in the package
// hand-writes a lock.
//
// It is `@inlinable` so that callers in the two executables get it specialized and inlined
// across the module boundary: a lock box that cost a generic, non-inlined call would make the
// references look slower than the same code written in the caller's module.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// A value behind a heap-allocated platform lock: `os_unfair_lock` on Apple platforms,
/// `pthread_mutex_t` elsewhere, the kind of lock the library itself uses. Both the lock and the
/// value live at stable heap addresses (a Swift stored property holding a lock could move; a
/// pointer never does), which is the shape of the library's internal `LockedState`, written anew
/// here so that the yardsticks share nothing with the code they measure.
public final class ReferenceLockedValue<Value>: @unchecked Sendable {
    #if canImport(Darwin)
    @usableFromInline typealias Primitive = os_unfair_lock
    #else
    @usableFromInline typealias Primitive = pthread_mutex_t
    #endif

    @usableFromInline let lock: UnsafeMutablePointer<Primitive>
    @usableFromInline let value: UnsafeMutablePointer<Value>

    /// Allocates and initializes the lock and a heap cell holding `initialValue`.
    public init(_ initialValue: Value) {
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
        value.deinitialize(count: 1)
        value.deallocate()
    }

    /// Runs `body` with exclusive, in-place access to the value (no copy of it is made).
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&value.pointee)
    }
}

/// A caller's token: a plain object (not `NetworkActivityCompletionReporting`), so the library
/// tracks it as a weakly held token entry that its sweep checks. Shared so that the suite and the
/// profiling executable hand the library and the references the same kind of object.
public final class Token: Sendable {
    /// Creates a token.
    public init() {}
}
