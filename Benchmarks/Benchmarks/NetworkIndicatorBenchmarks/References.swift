// REFERENCE IMPLEMENTATIONS — not part of NetworkIndicator.
//
// The benchmarks compare the library against two yardsticks written here, independently of the
// library's sources:
//
// (a) `ReferenceLockedCounter`: an `Int` behind the same kind of lock the library uses
//     (`os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere, heap-allocated, the
//     state at a stable heap address). Push/pop on it is the floor: no thread-safe counter can
//     do much less work per call.
//
// (b) `ArticleNetworkIndicator`: the algorithm of the original blog article the project started
//     from. An array of weak wrappers behind a lock; every begin appends a wrapper and then
//     filters the whole array to drop wrappers whose object died (O(n) per begin, plus a fresh
//     array each time); finish removes the matching wrapper found by a linear search (O(n)).
//     Only the bookkeeping is reproduced: the article's main-thread UI update is left out, which
//     flatters the article.

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// A value behind a heap-allocated platform lock (the shape of the library's internal
/// `LockedState`, written anew for the benchmarks).
final class ReferenceLockedValue<Value>: @unchecked Sendable {
    #if canImport(Darwin)
    private typealias Primitive = os_unfair_lock
    #else
    private typealias Primitive = pthread_mutex_t
    #endif

    private let lock: UnsafeMutablePointer<Primitive>
    private let value: UnsafeMutablePointer<Value>

    init(_ initialValue: Value) {
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

    @inline(__always)
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
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

// MARK: - (a) Locked counter: the floor

/// REFERENCE (a): a network activity counter and nothing else.
final class ReferenceLockedCounter: Sendable {
    private let state = ReferenceLockedValue(0)

    func push() {
        state.withLock { $0 += 1 }
    }

    func pop() {
        state.withLock { count in
            if count > 0 { count -= 1 }
        }
    }

    var count: Int {
        state.withLock { $0 }
    }
}

// MARK: - (b) The article's O(n) algorithm

/// REFERENCE (b): the article's wrapper: one per begin, holding the token weakly.
final class WeakWrapper {
    weak var value: AnyObject?

    init(_ value: AnyObject) {
        self.value = value
    }
}

/// REFERENCE (b): the original article's tracker. Every begin appends a wrapper and filters the
/// whole array (dropping dead wrappers); finish removes the first wrapper of the token found by a
/// linear search.
final class ArticleNetworkIndicator: @unchecked Sendable {
    private let state = ReferenceLockedValue<[WeakWrapper]>([])

    func beganNetworkTask(withToken token: AnyObject) {
        state.withLock { wrappers in
            wrappers.append(WeakWrapper(token))
            wrappers = wrappers.filter { $0.value != nil }
        }
    }

    func finishedNetworkTask(forToken token: AnyObject) {
        state.withLock { wrappers in
            if let index = wrappers.firstIndex(where: { $0.value === token }) {
                wrappers.remove(at: index)
            }
        }
    }

    var activeTaskCount: Int {
        state.withLock { $0.count }
    }

    /// Benchmark setup only: leaves the state that one begin for each of `tokens` (all alive)
    /// leaves, in O(n) instead of the O(n²) of calling `beganNetworkTask` n times.
    func seed(withLiveTokens tokens: [AnyObject]) {
        let wrappers = tokens.map(WeakWrapper.init)
        state.withLock { $0.append(contentsOf: wrappers) }
    }
}
