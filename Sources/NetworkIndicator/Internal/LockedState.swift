#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

#if canImport(Darwin)
private typealias LockPrimitive = os_unfair_lock
#else
private typealias LockPrimitive = pthread_mutex_t
#endif

/// All of a component's mutable state behind one non-recursive lock, reachable only through
/// ``withLock(_:)`` (or its one unchecked form, ``withLockUnchecked(_:)``) so that nobody can
/// forget to take it.
///
/// It follows the standard library's `Mutex` (which needs macOS 15 / iOS 18): the box is
/// `Sendable` whatever its state, because the state goes in as `sending` and is reached only
/// inside ``withLock(_:)``, where it is `inout sending` and a result leaves as `sending`, so the
/// compiler checks that nothing of the state escapes the lock unless it may cross threads. The
/// lock and the state share one heap allocation, as in swift-nio's `NIOLockedValueBox`: a
/// `ManagedBuffer` whose header is the state and whose one element is the lock, both at stable
/// addresses, so the state is changed in place.
///
/// The lock is the cheapest the platform offers without an availability check: `os_unfair_lock`
/// on Apple platforms and a plain `pthread_mutex_t` elsewhere. It is not recursive: never call
/// code you do not own while holding it.
///
/// `package`, not `internal`: the `NetworkIndicatorTesting` target's manual scheduler keeps its
/// state in the same box.
///
/// `@unchecked Sendable` because the compiler cannot see the lock (and `ManagedBuffer` is not
/// `Sendable`): the state is only reached with the lock held, in ``withLock(_:)`` as
/// `inout sending`, so whatever of it leaves the lock is checked by the compiler as a value sent
/// to another thread; and in ``withLockUnchecked(_:)``, which is internal to this module and
/// used only by the driver's methods that its header names, each saying why it is safe.
package struct LockedState<State>: @unchecked Sendable {
    private let storage: LockedStateStorage<State>

    /// Creates the box holding `initialState`.
    package init(_ initialState: sending State) {
        storage = LockedStateStorage.make(initialState)
    }

    /// Runs `body` with exclusive access to the state.
    package func withLock<Result>(_ body: (inout sending State) throws -> sending Result) rethrows -> sending Result {
        let lock = storage.lock
        LockedStateStorage<State>.acquire(lock)
        defer { LockedStateStorage<State>.release(lock) }
        return try body(&storage.state.pointee)
    }

    /// ``withLock(_:)`` without the compiler's check of what enters and leaves the lock; each
    /// caller says why that is safe (`IndicatorDriver`'s "Callers' objects").
    func withLockUnchecked<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        let lock = storage.lock
        LockedStateStorage<State>.acquire(lock)
        defer { LockedStateStorage<State>.release(lock) }
        return try body(&storage.state.pointee)
    }
}

/// The one allocation of a ``LockedState``: the state as the header, the lock as the one element.
private final class LockedStateStorage<State>: ManagedBuffer<State, LockPrimitive> {
    static func make(_ initialState: sending State) -> LockedStateStorage {
        // The dynamic type of `create`'s result is this subclass: a checked cast, made once.
        let storage = create(minimumCapacity: 1) { _ in initialState } as! LockedStateStorage
        storage.withUnsafeMutablePointerToElements { lock in
            #if canImport(Darwin)
            lock.initialize(to: os_unfair_lock())
            #else
            lock.initialize(to: pthread_mutex_t())
            let status = pthread_mutex_init(lock, nil)
            precondition(status == 0, "pthread_mutex_init failed: \(status)")
            #endif
        }
        return storage
    }

    deinit {
        // The header (the state) is destroyed by `ManagedBuffer`; the element is the lock's.
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }

    /// The state's address, stable for the buffer's life.
    var state: UnsafeMutablePointer<State> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    /// The lock's address, stable for the buffer's life.
    var lock: UnsafeMutablePointer<LockPrimitive> {
        withUnsafeMutablePointerToElements { $0 }
    }

    @inline(__always)  // pays: unspecialized calls from other modules (Benchmarks/README.md, "The engine cut")
    static func acquire(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        #else
        pthread_mutex_lock(lock)
        #endif
    }

    @inline(__always)  // pays: unspecialized calls from other modules (Benchmarks/README.md, "The engine cut")
    static func release(_ lock: UnsafeMutablePointer<LockPrimitive>) {
        #if canImport(Darwin)
        os_unfair_lock_unlock(lock)
        #else
        pthread_mutex_unlock(lock)
        #endif
    }
}
