// A hand-written replacement of `[ObjectIdentifier: Int32]`, kept because it pays (Benchmarks/README.md,
// "Unsafe and hand-written constructs"). No unsafe code (optional keys, checked subscripts). Correct
// because the probe loop always finds an empty slot (load factor at most 3/4) and backward-shift
// deletion keeps every key reachable from its home slot (TaskRegistryTests, "Identity table").

/// A hash table from object identities to small integers: open addressing, linear probing,
/// Fibonacci hashing, deletion by backward shift (no tombstones). Keys are object addresses, which
/// no outsider chooses, so a multiplicative hash is enough. A key and its value share one slot of
/// one array: one cache line and one uniqueness check per access.
struct IdentityTable {
    private struct Slot {
        /// `nil` marks an empty slot.
        var key: ObjectIdentifier?
        var value: Int32
    }

    private var slots: [Slot]
    private var shift: UInt
    private(set) var count = 0
    /// ``keyLimit(ofSlots:)`` of the current slot count, kept beside the slots: a call that may add a
    /// key doubles the table first when it holds this many.
    private var keyLimit: Int

    init() {
        slots = Array(repeating: Slot(key: nil, value: 0), count: 16)
        shift = UInt(UInt.bitWidth - 4)
        keyLimit = Self.keyLimit(ofSlots: slots.count)
    }

    /// The most keys a table of `slotCount` slots holds before an insert doubles it: three
    /// quarters of them (probing relies on the free quarter; memory on not doubling earlier).
    /// It starts with 16 slots, and `slotCount` is always a power of two.
    static func keyLimit(ofSlots slotCount: Int) -> Int {
        slotCount / 4 * 3
    }

    private var mask: Int { slots.count - 1 }

    /// The key's home slot: the top bits of its Fibonacci hash. `&>>` cannot overshift: `shift` is the
    /// word width less log2 of the slot count, which is at least 4.
    private func home(of key: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: key) &* Self.multiplier) &>> shift)
    }

    /// 2^w / φ for the word width w: Knuth's multiplicative (Fibonacci) hashing.
    private static let multiplier: UInt =
        UInt.bitWidth == 64 ? UInt(truncatingIfNeeded: 0x9E37_79B9_7F4A_7C15 as UInt64) : 0x9E37_79B9

    func value(for key: ObjectIdentifier) -> Int32? {
        position(of: key).map { slots[$0].value }
    }

    /// Where `key` lies in the table, if it is there: valid until the table next changes, for
    /// ``value(at:)`` and ``remove(at:)``, so that a lookup followed by a removal probes once.
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

    /// The value stored for `key`; if it has none, stores `newValue` for it (one probe for
    /// both) and returns `nil`.
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

    /// Removes `key`; returns its value, or `nil` if it was absent.
    @discardableResult
    mutating func remove(_ key: ObjectIdentifier) -> Int32? {
        guard let position = position(of: key) else { return nil }
        let removed = slots[position].value
        remove(at: position)
        return removed
    }

    /// Removes the key at `position` (from ``position(of:)``).
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
