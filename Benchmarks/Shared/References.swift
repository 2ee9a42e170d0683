// REFERENCE IMPLEMENTATIONS — not part of NetworkIndicator.
//
// Yardsticks for the library, written here independently of its sources and shared by the
// benchmark suite (`swift package benchmark`, sections 0 and 3) and the profiling executable
// (`NetworkIndicatorProfile ratios`), so that both measure the same code:
//
// (a) `ReferenceLockedCounter`: an `Int` behind the package's lock box. Push/pop on it is the
//     floor of any thread-safe counter.
// (b) `ArticleNetworkIndicator`: the O(n) algorithm of the original blog article.
// (c) `WeakReferenceFloor`: the locked counter plus one weak reference stored, loaded and
//     cleared per begin+finish pair: the least any design that holds callers' tokens weakly
//     must pay.
// (d) `ObviousWeakDictionary`: the ~20-line design anyone would write first,
//     `[ObjectIdentifier: Entry]` under one `NSLock`. The library's explicit begin+finish is
//     judged against it.
// (e) `AlamofireStyleIDSet`: a `Set<String>` of UUID strings under an `NSRecursiveLock`, the
//     shape of request tracking by identifier strings in networking libraries.
// (f) `WrapperWeakDictionary`: (d) written with the design card's `WeakWrapper` class instead
//     of a struct entry, `[ObjectIdentifier: CountingWeakWrapper]`: one wrapper object
//     allocated per token that opens an entry. A second yardstick beside (d), which is the
//     stricter one.
//
// Their begin/finish methods are public and deliberately not `@inlinable`: the benchmarks call
// them across a module boundary, as they call the library, so neither side gets inlined into the
// measuring loop while the other does not.

import Foundation

// MARK: - (a) Locked counter: the floor of a counter

/// REFERENCE (a): a network activity counter and nothing else.
public final class ReferenceLockedCounter: Sendable {
    private let state = ReferenceLockedValue(0)

    /// Creates a counter at zero.
    public init() {}

    /// Counts one more activity.
    public func push() {
        state.withLock { $0 += 1 }
    }

    /// Counts one activity less (never below zero).
    public func pop() {
        state.withLock { count in
            if count > 0 { count -= 1 }
        }
    }

    /// The current count.
    public var count: Int {
        state.withLock { $0 }
    }
}

// MARK: - (b) The article's O(n) algorithm

/// REFERENCE (b): the article's wrapper: one per begin, holding the token weakly.
public final class WeakWrapper {
    /// The token, or `nil` once it has been deallocated.
    public weak var value: AnyObject?

    /// Wraps `value` weakly.
    public init(_ value: AnyObject) {
        self.value = value
    }
}

/// REFERENCE (b): the original article's tracker. An array of weak wrappers behind the lock;
/// every begin appends a wrapper and then filters the whole array, dropping wrappers whose
/// object died (O(n), and a fresh array each time); finish removes the first wrapper holding the
/// token, found by a linear search (O(n)). Only the bookkeeping is reproduced: the article's
/// main-thread UI update is left out, which flatters the article.
public final class ArticleNetworkIndicator: @unchecked Sendable {
    private let state = ReferenceLockedValue<[WeakWrapper]>([])

    /// Creates a tracker with no tasks.
    public init() {}

    /// Appends a wrapper for `token`, then drops every wrapper whose token died (O(n)).
    public func beganNetworkTask(withToken token: AnyObject) {
        state.withLock { wrappers in
            wrappers.append(WeakWrapper(token))
            wrappers = wrappers.filter { $0.value != nil }
        }
    }

    /// Removes the first wrapper holding `token`, found by a linear search (O(n)).
    public func finishedNetworkTask(forToken token: AnyObject) {
        state.withLock { wrappers in
            if let index = wrappers.firstIndex(where: { $0.value === token }) {
                wrappers.remove(at: index)
            }
        }
    }

    /// Wrappers held, dead ones included until the next begin filters them.
    public var activeTaskCount: Int {
        state.withLock { $0.count }
    }

    /// Benchmark setup only: leaves the state that one begin for each of `tokens` (all alive)
    /// leaves, in O(n) instead of the O(n²) of calling `beganNetworkTask` n times.
    public func seed(withLiveTokens tokens: [AnyObject]) {
        let wrappers = tokens.map(WeakWrapper.init)
        state.withLock { $0.append(contentsOf: wrappers) }
    }
}

// MARK: - (c) Weak-reference floor

/// REFERENCE (c): what every begin+finish pair of a weak-token tracker costs at the very least:
/// the locked counter's lock and arithmetic, plus one weak reference to the token stored on begin
/// (`swift_weakAssign`; the token's first weak reference also gives it a side table, once), and
/// loaded (a strong retain and release through the side table, to check it is still the same
/// token) and cleared on finish.
///
/// It has a single slot, so it is a measuring device, not a tracker: begin overwrites the slot,
/// and a finish for a token other than the one in the slot only clears the slot.
public final class WeakReferenceFloor: @unchecked Sendable {
    private struct State {
        var count = 0
        weak var token: AnyObject?
    }

    // The state sits at a stable heap address behind the lock and is accessed in place (inout),
    // so the weak field is stored, loaded and cleared where it is, without copying the struct.
    private let state = ReferenceLockedValue(State())

    /// Creates a floor with an empty slot.
    public init() {}

    /// Under the lock: counts one more and stores a weak reference to `token` in the slot.
    public func begin(_ token: AnyObject) {
        state.withLock { state in
            state.count += 1
            state.token = token  // store
        }
    }

    /// Under the lock: loads the slot, counts one less if it holds `token`, and clears it.
    public func finish(_ token: AnyObject) {
        state.withLock { state in
            if state.token === token {  // load
                state.count -= 1
            }
            state.token = nil  // clear
        }
    }

    /// Begins not yet finished.
    public var count: Int {
        state.withLock { $0.count }
    }
}

// MARK: - (d) The obvious weak dictionary

/// REFERENCE (d): the design anyone would write first. One entry per live token, keyed by the
/// token's identity, holding the token weakly (so a caller that forgets to finish does not leak
/// its token) and counting its begins; one `NSLock` around everything.
///
/// A dead token's address can be reused by a new object, so begin treats an entry whose object
/// died as absent and replaces it. Finish trusts its caller: a token being finished is alive (the
/// caller holds it), so its entry is its own unless it was never begun; unbalanced finishes are
/// not guarded against beyond "no entry, nothing to do". There is no sweep of dead entries.
public final class ObviousWeakDictionary: @unchecked Sendable {
    private struct Entry {
        weak var object: AnyObject?
        var count: Int
    }

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// Creates a tracker with no entries.
    public init() {}

    /// Counts one more begin of `token`, or gives it a new entry (replacing a dead one).
    public func begin(_ token: AnyObject) {
        let key = ObjectIdentifier(token)
        lock.lock()
        defer { lock.unlock() }
        if let index = entries.index(forKey: key), entries.values[index].object != nil {
            entries.values[index].count += 1
        } else {
            // New token, or a dead token's entry at a reused address: start over.
            entries[key] = Entry(object: token, count: 1)
        }
    }

    /// Counts one finish of `token`; its entry is removed when its count reaches zero.
    public func finish(_ token: AnyObject) {
        let key = ObjectIdentifier(token)
        lock.lock()
        defer { lock.unlock() }
        guard let index = entries.index(forKey: key) else { return }
        entries.values[index].count -= 1
        if entries.values[index].count == 0 {
            entries.remove(at: index)
        }
    }

    /// Tokens with an entry (dead ones included until their address is reused).
    public var trackedTokenCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return entries.count
    }
}

// MARK: - (e) Alamofire-style identifier set

/// REFERENCE (e): tracking by identifier strings. Begin makes a fresh `UUID().uuidString` and
/// inserts it into a `Set<String>`; finish removes it. The lock is an `NSRecursiveLock`, as in
/// code that may re-enter its own lock from callbacks. Nothing is weak: a caller that loses its
/// identifier leaks the activity forever.
public final class AlamofireStyleIDSet: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var identifiers: Set<String> = []

    /// Creates an empty set.
    public init() {}

    /// Makes a fresh identifier, inserts it and returns it.
    public func begin() -> String {
        let identifier = UUID().uuidString
        lock.lock()
        defer { lock.unlock() }
        identifiers.insert(identifier)
        return identifier
    }

    /// Removes `identifier`.
    public func finish(_ identifier: String) {
        lock.lock()
        defer { lock.unlock() }
        identifiers.remove(identifier)
    }

    /// Identifiers begun and not yet finished.
    public var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return identifiers.count
    }
}

// MARK: - (f) The obvious dictionary with the card's wrapper class

/// REFERENCE (f): the wrapper of the design card, counting: one object per open entry, holding
/// the token weakly.
public final class CountingWeakWrapper {
    /// The token, or `nil` once it has been deallocated.
    public weak var object: AnyObject?
    /// Open begins of the token.
    public var count = 1

    /// Wraps `object` weakly, with one begin counted.
    public init(_ object: AnyObject) {
        self.object = object
    }
}

/// REFERENCE (f): (d) as the design card words it, `[ObjectIdentifier: WeakWrapper]`: the
/// same begin and finish rules as ``ObviousWeakDictionary`` (a dead token's entry at a reused
/// address is replaced; finish trusts its caller), but each entry is a wrapper object, so a
/// begin that opens an entry allocates one and the finish that closes it frees it. Reads of the
/// wrapper's weak field happen in place (a class field), with no copy of the weak reference.
public final class WrapperWeakDictionary: @unchecked Sendable {
    private let lock = NSLock()
    private var wrappers: [ObjectIdentifier: CountingWeakWrapper] = [:]

    /// Creates a tracker with no entries.
    public init() {}

    /// Counts one more begin of `token`, or gives it a new wrapper (replacing a dead one).
    public func begin(_ token: AnyObject) {
        let key = ObjectIdentifier(token)
        lock.lock()
        defer { lock.unlock() }
        if let wrapper = wrappers[key], wrapper.object != nil {
            wrapper.count += 1
        } else {
            wrappers[key] = CountingWeakWrapper(token)
        }
    }

    /// Counts one finish of `token`; its wrapper is removed when its count reaches zero.
    public func finish(_ token: AnyObject) {
        let key = ObjectIdentifier(token)
        lock.lock()
        defer { lock.unlock() }
        guard let wrapper = wrappers[key] else { return }
        wrapper.count -= 1
        if wrapper.count == 0 { wrappers[key] = nil }
    }

    /// Tokens with a wrapper (dead ones included until their address is reused).
    public var trackedTokenCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return wrappers.count
    }
}
