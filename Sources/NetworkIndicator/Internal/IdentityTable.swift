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
