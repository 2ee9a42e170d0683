#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

// The engine's two primitives: a lock (`LockedState`) and a clock (`CoarseClock`, `EventTime`).

#if canImport(Darwin)
private typealias LockPrimitive = os_unfair_lock
#else
private typealias LockPrimitive = pthread_mutex_t
#endif

// Unsafe code in this file: `@unchecked Sendable`, and a lock primitive reached through
// `ManagedBuffer`'s element pointer. Why it is correct: the pointer is the buffer's own element
// storage, the lock initialized once in `make` and destroyed in `deinit`, and the state (the
// header) is touched only between `acquire` and `release` of that lock. It is not a speed trick but a
// stand-in for the standard `Mutex`, which needs macOS 15 / iOS 18 (the package's floor is
// iOS 13); one allocation for lock and state, as swift-nio's `NIOLockedValueBox`, instead of an
// `NSLock` object beside the state. No A/B against `NSLock` was run.

/// All of a component's mutable state behind one non-recursive lock, reachable only through
/// ``withLock(_:)`` (or, inside this module, ``withLockUnchecked(_:)``), so that nobody can forget
/// to take it. Modelled on the standard library's `Mutex` (macOS 15 / iOS 18): the state goes in
/// as `sending` and is `inout sending` under the lock, so the compiler checks that nothing of it
/// leaves unless it may cross threads. Lock and state share one `ManagedBuffer` allocation, as in
/// swift-nio's `NIOLockedValueBox`. The lock is `os_unfair_lock` on Apple platforms and
/// `pthread_mutex_t` elsewhere; never call code you do not own while holding it. `package`: the
/// testing target's manual scheduler keeps its state in the same box.
///
/// `@unchecked Sendable`: the compiler cannot see the lock (and `ManagedBuffer` is not
/// `Sendable`); the state is reached only with the lock held, as described above.
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

    /// ``withLock(_:)`` without the compiler's check of what crosses the lock; each caller says
    /// why that is safe (`IndicatorDriver`'s "Callers' objects").
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
        // `ManagedBuffer` destroys the header (the state); the element, the lock, is ours.
        withUnsafeMutablePointerToElements { lock in
            #if !canImport(Darwin)
            pthread_mutex_destroy(lock)
            #endif
            _ = lock.deinitialize(count: 1)
        }
    }

    /// The state's address, and below the lock's: both stable for the buffer's life.
    var state: UnsafeMutablePointer<State> {
        withUnsafeMutablePointerToHeader { $0 }
    }

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

// MARK: - The clock

/// The monotonic clock at tick resolution (a few milliseconds), for readings where precision buys
/// nothing: task start times (snapshots, stale reports) and the edges a running delay absorbs.
/// Same origin as ``MainQueueScheduler/now`` (system uptime), never ahead of it. Read through
/// ``EventTime`` instead of `now` by a manager on ``MainQueueScheduler``; the gain is in
/// Benchmarks/README.md ("Unsafe and hand-written constructs").
enum CoarseClock {
    /// One nanosecond in seconds: multiplied, not divided (a division showed under `perf`; Benchmarks/README.md).
    private static let nanosecond = 1e-9

    /// Seconds of system uptime, up to one scheduler tick behind the precise clock.
    static var now: Double {
        #if canImport(Darwin)
        return Double(clock_gettime_nsec_np(CLOCK_UPTIME_RAW_APPROX)) * nanosecond
        #else
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * nanosecond
        #endif
    }
}

/// The time of one event, read at most once and only when asked: a reading taken before the lock
/// (a scheduler other than ``MainQueueScheduler``), or the coarse clock on demand. In seconds,
/// a `TimeInterval` (Foundation is not imported here).
struct EventTime {
    /// The reading, or NaN until read (a NaN preread, out of the scheduler's contract, reads the
    /// coarse clock). Not an optional: it crosses the registry's calls `inout` (Benchmarks/README.md).
    private var reading: Double

    init(preread: Double?) {
        reading = preread ?? .nan
    }

    mutating func now() -> Double {
        if !reading.isNaN { return reading }
        reading = CoarseClock.now
        return reading
    }
}
