#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

// The engine's three primitives: a lock (`LockedState`), a clock (`CoarseClock`, `EventTime`) and
// an identity table (`IdentityTable`).

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

// MARK: - The identity table

/// A hash table from object identities to small integers, in place of `[ObjectIdentifier: Int32]`
/// because it pays (Benchmarks/README.md, "Unsafe and hand-written constructs"): open addressing,
/// linear probing, Fibonacci hashing (keys are addresses, which no outsider chooses), deletion by
/// backward shift (no tombstones); a key and its value share one slot. No unsafe code. Correct
/// because probing always finds an empty slot (load factor at most 3/4) and backward-shift
/// deletion keeps every key reachable from its home slot (TaskRegistryTests, "Identity table").
struct IdentityTable {
    private struct Slot {
        /// `nil` marks an empty slot.
        var key: ObjectIdentifier?
        var value: Int32
    }

    private var slots: [Slot]
    private var shift: UInt
    private(set) var count = 0
    /// ``keyLimit(ofSlots:)`` of the slot count: a call that may add a key first doubles a table this full.
    private var keyLimit: Int

    init() {
        slots = Array(repeating: Slot(key: nil, value: 0), count: 16)
        shift = UInt(UInt.bitWidth - 4)
        keyLimit = Self.keyLimit(ofSlots: slots.count)
    }

    /// The most keys `slotCount` slots (a power of two, 16 at first) hold before an insert doubles
    /// them: three quarters (probing relies on the free quarter).
    static func keyLimit(ofSlots slotCount: Int) -> Int {
        slotCount / 4 * 3
    }

    private var mask: Int { slots.count - 1 }

    /// The key's home slot: the top bits of its Fibonacci hash (`shift` is the word width less
    /// log2 of the slot count, at least 4, so `&>>` cannot overshift).
    private func home(of key: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: key) &* Self.multiplier) &>> shift)
    }

    /// 2^w / φ for the word width w: Knuth's multiplicative (Fibonacci) hashing.
    private static let multiplier: UInt =
        UInt.bitWidth == 64 ? UInt(truncatingIfNeeded: 0x9E37_79B9_7F4A_7C15 as UInt64) : 0x9E37_79B9

    func value(for key: ObjectIdentifier) -> Int32? {
        position(of: key).map { slots[$0].value }
    }

    /// Where `key` lies, if it is there, until the table next changes: a lookup then a removal probes once.
    @inline(__always)  // pays: every explicit begin or finish (Benchmarks/README.md, "The token passed as it is")
    func position(of key: ObjectIdentifier) -> Int? {
        var index = home(of: key)
        while let found = slots[index].key {
            if found == key { return index }
            index = (index + 1) & mask
        }
        return nil
    }

    /// The value at `position` (from ``position(of:)``).
    func value(at position: Int) -> Int32 {
        slots[position].value
    }

    /// The value stored for `key`; if none, stores `newValue` (in the same probe) and returns `nil`.
    @inline(__always)  // pays: every explicit begin or finish (Benchmarks/README.md, "The token passed as it is")
    mutating func value(for key: ObjectIdentifier, insertingIfAbsent newValue: Int32) -> Int32? {
        if count >= keyLimit { grow() }
        var index = home(of: key)
        while let found = slots[index].key {
            if found == key { return slots[index].value }
            index = (index + 1) & mask
        }
        count += 1
        slots[index] = Slot(key: key, value: newValue)
        return nil
    }

    mutating func set(_ value: Int32, for key: ObjectIdentifier) {
        if count >= keyLimit { grow() }
        var index = home(of: key)
        while let found = slots[index].key, found != key {
            index = (index + 1) & mask
        }
        if slots[index].key == nil { count += 1 }
        slots[index] = Slot(key: key, value: value)
    }

    /// Removes `key`, if present.
    mutating func remove(_ key: ObjectIdentifier) {
        if let position = position(of: key) { remove(at: position) }
    }

    /// Removes the key at `position` (from ``position(of:)``).
    @inline(__always)  // pays: every explicit begin or finish (Benchmarks/README.md, "The token passed as it is")
    mutating func remove(at position: Int) {
        let mask = mask
        // Shift later members of the probe run back into the hole: no tombstones.
        var hole = position
        var next = position
        while true {
            next = (next + 1) & mask
            guard let candidate = slots[next].key else { break }
            let ideal = home(of: candidate)
            let staysPut = hole <= next ? (hole < ideal && ideal <= next) : (hole < ideal || ideal <= next)
            if staysPut { continue }
            slots[hole] = slots[next]
            hole = next
        }
        slots[hole].key = nil
        count -= 1
    }

    /// Empties the table and gives its storage back.
    mutating func removeAll() {
        self = IdentityTable()
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: nil, value: 0), count: old.count * 2)
        shift -= 1
        keyLimit = Self.keyLimit(ofSlots: slots.count)
        count = 0
        for slot in old {
            if let key = slot.key { set(slot.value, for: key) }
        }
    }
}
