import Foundation

extension TaskRegistry {
    /// One slot: an entry while ``count`` is positive, free when it is 0.
    struct Entry {
        /// The owner's identity; meaningless in a pinned slot (see ``TaskRegistry``).
        var key: ObjectIdentifier
        var token: WeakWrapper
        var count: Int
        var startedAt: TimeInterval
        var kind: TaskKind
        /// The label lives in ``TaskRegistry/labels`` (only labelled entries pay for one).
        var hasLabel: Bool
        var isStaleReported = false
        /// The slot belongs to an opaque token until the token is released, even while it has
        /// no task (see the type's header).
        var isPinned = false
        /// In a free slot, the next free slot (`-1`: none): the free slots form a list threaded
        /// through the array, headed by ``TaskRegistry/firstFreeSlot``, so that taking and
        /// returning a slot touch no second array.
        var nextFreeSlot: Int32 = -1
        /// The slot's generation, kept whatever the slot holds: a pinned slot's token carries
        /// it, and the release of the token bumps it, so that the token's pair goes stale.
        var generation: UInt32

        /// No open task (a free slot, or a pinned one whose tasks ended).
        var isFree: Bool { count == 0 }
        /// Holds an entry: it has tasks, or it is pinned to its opaque token.
        var isInUse: Bool { count > 0 || isPinned }
    }
}

extension TaskRegistry.Entry {
    /// A slot before its first fill, in `generation`.
    static func blank(generation: UInt32) -> Self {
        Self(
            key: ObjectIdentifier(TaskRegistry.Entry.self),
            token: WeakWrapper(),
            count: 0,
            startedAt: 0,
            kind: .group,
            hasLabel: false,
            generation: generation
        )
    }

    /// Makes a free slot the entry of a first task begun at `now`.
    @inline(__always)
    mutating func fill(key: ObjectIdentifier, object: AnyObject?, kind: TaskKind, hasLabel: Bool, now: TimeInterval) {
        self.key = key
        // A free slot's weak reference is already `nil` (`free()` clears it for the kinds that
        // store one), so a task without an object skips the runtime's weak store.
        if let object { token.object = object }
        count = 1
        startedAt = now
        self.kind = kind
        self.hasLabel = hasLabel
        isStaleReported = false
    }

    /// Makes a free slot (or a pinned one without a task) the pinned entry of an opaque
    /// token's first task begun at `now`; the key and the weak reference stay untouched.
    @inline(__always)
    mutating func fillPinned(hasLabel: Bool, now: TimeInterval) {
        count = 1
        startedAt = now
        kind = .opaqueToken
        self.hasLabel = hasLabel
        isStaleReported = false
        isPinned = true
    }

    /// Frees a slot pinned to an opaque token, ending its tasks and bumping its generation:
    /// ``free(next:)``, in the same write to the entry.
    @inline(__always)
    mutating func unpin(next: Int32) {
        isPinned = false
        generation &+= 1
        free(next: next)
    }

    /// Frees the slot, putting it at the head of the free list before `next`; the token is let
    /// go at once.
    @inline(__always)
    mutating func free(next: Int32) {
        count = 0
        nextFreeSlot = next
        if kind.holdsObject { token.object = nil }
    }
}

/// Holds a caller's token without keeping it alive: the weak wrapper of the design card.
///
/// Once ``object`` reads `nil` the token is gone, whatever object the runtime later puts at the
/// same address; this is why an entry is identified by its key *and* its wrapper.
///
/// ``load()`` is a `mutating` read, kept because it pays: it reads the weak reference where it
/// lies in the registry's array (reached through `inout`, the array's modify accessor), where a
/// plain read of `entries[index].token.object` goes through the array's getter, which copies the
/// entry's weak reference (`swift_weakCopyInit`) and destroys the copy: two atomic operations on
/// the token's side table. Nothing unsafe: it is an ordinary `mutating` method that changes
/// nothing, called only under the manager's lock. The measured gain is in Benchmarks/README.md
/// ("Unsafe and hand-written constructs").
struct WeakWrapper {
    weak var object: AnyObject?

    /// The token, strongly, or `nil` if it is gone, read in place (see above).
    @inline(__always)
    mutating func load() -> AnyObject? {
        object
    }
}

/// What the registry issues to a new opaque token: its slot and the slot's generation. The
/// pair names the token's entry until the token is released; after that it is stale, and every
/// pinned-slot call given it changes nothing.
struct PinnedSlot: Equatable, Sendable {
    let slot: Int32
    let generation: UInt32
}
