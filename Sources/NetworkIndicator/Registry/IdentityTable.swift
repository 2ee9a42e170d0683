// A hand-written replacement of a standard type (`[ObjectIdentifier: Int32]`), kept because it
// pays (the same-run A/B against `Dictionary` is in Benchmarks/README.md, "Unsafe and
// hand-written constructs"): it holds no unsafe code (optional keys, checked array subscripts),
// and correctness rests on the probe loop always finding an empty slot (the load factor stays at
// most 3/4) and on the backward-shift deletion keeping every key reachable from its home slot
// (tested in TaskRegistryTests, "Identity table").

/// A hash table from object identities to small integers: open addressing, linear probing,
/// Fibonacci hashing, deletion by backward shift (no tombstones).
///
/// The registry's keys are object addresses, which no outsider chooses, so a multiplicative
/// hash is enough; it costs a multiply where `Dictionary`'s seeded SipHash costs tens of
/// nanoseconds, and begin and finish each do one lookup. A key and its value share one slot of
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

    init() {
        slots = Array(repeating: Slot(key: nil, value: 0), count: 16)
        shift = UInt(UInt.bitWidth - 4)
    }

    /// Whether a table of `slotCount` slots holding `count` keys must double before one more
    /// insert: it fills up to three quarters of its slots (probing relies on the free quarter;
    /// memory on not doubling earlier). It starts with 16 slots.
    static func mustGrow(toInsertInto slotCount: Int, holding count: Int) -> Bool {
        (count + 1) * 4 > slotCount * 3
    }

    private var mask: Int { slots.count - 1 }

    private func home(of key: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: (UInt(bitPattern: key) &* Self.multiplier) >> shift)
    }

    /// 2^w / φ for the word width w: Knuth's multiplicative (Fibonacci) hashing.
    private static let multiplier: UInt =
        UInt.bitWidth == 64 ? UInt(truncatingIfNeeded: 0x9E37_79B9_7F4A_7C15 as UInt64) : 0x9E37_79B9

    /// The value stored for `key`, if any.
    func value(for key: ObjectIdentifier) -> Int32? {
        var index = home(of: key)
        while true {
            let found = slots[index].key
            if found == key { return slots[index].value }
            if found == nil { return nil }
            index = (index + 1) & mask
        }
    }

    /// Stores `value` for `key`, replacing any value it had.
    mutating func set(_ value: Int32, for key: ObjectIdentifier) {
        if Self.mustGrow(toInsertInto: slots.count, holding: count) { grow() }
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
        let mask = mask
        var index = home(of: key)
        while slots[index].key != key {
            if slots[index].key == nil { return nil }
            index = (index + 1) & mask
        }
        let removed = slots[index].value
        // Shift later members of the probe run back into the hole, so lookups never need
        // tombstones.
        var hole = index
        var next = index
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
        return removed
    }

    /// Empties the table and gives its storage back.
    mutating func removeAll() {
        self = IdentityTable()
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(key: nil, value: 0), count: old.count * 2)
        shift -= 1
        count = 0
        for slot in old {
            if let key = slot.key { set(slot.value, for: key) }
        }
    }
}
