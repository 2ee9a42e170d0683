/// A hash table from object identities to small integers: open addressing, linear probing,
/// Fibonacci hashing, deletion by backward shift (no tombstones).
///
/// The registry's keys are object addresses, which no outsider chooses, so a multiplicative
/// hash is enough; it costs a multiply where `Dictionary`'s seeded SipHash costs tens of
/// nanoseconds, and begin and finish each do one lookup.
struct IdentityTable {
    /// `0` marks an empty slot (no object lives at address 0).
    private var keys: [UInt]
    private var values: [Int32]
    private var shift: UInt
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 16)
        values = Array(repeating: 0, count: 16)
        shift = UInt(UInt.bitWidth - 4)
    }

    private var mask: Int { keys.count - 1 }

    private func home(of key: UInt) -> Int {
        Int(truncatingIfNeeded: (key &* Self.multiplier) >> shift)
    }

    /// 2^w / φ for the word width w: Knuth's multiplicative (Fibonacci) hashing.
    private static let multiplier: UInt =
        UInt.bitWidth == 64 ? UInt(truncatingIfNeeded: 0x9E37_79B9_7F4A_7C15 as UInt64) : 0x9E37_79B9

    /// The value stored for `key`, if any.
    func value(for key: ObjectIdentifier) -> Int32? {
        let key = UInt(bitPattern: key)
        var slot = home(of: key)
        while true {
            let found = keys[slot]
            if found == key { return values[slot] }
            if found == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Stores `value` for `key`, replacing any value it had.
    mutating func set(_ value: Int32, for key: ObjectIdentifier) {
        if (count + 1) * 4 > keys.count * 3 { grow() }
        let key = UInt(bitPattern: key)
        var slot = home(of: key)
        while keys[slot] != 0 && keys[slot] != key {
            slot = (slot + 1) & mask
        }
        if keys[slot] == 0 { count += 1 }
        keys[slot] = key
        values[slot] = value
    }

    /// Removes `key`; returns its value, or `nil` if it was absent.
    @discardableResult
    mutating func remove(_ key: ObjectIdentifier) -> Int32? {
        let key = UInt(bitPattern: key)
        var slot = home(of: key)
        while keys[slot] != key {
            if keys[slot] == 0 { return nil }
            slot = (slot + 1) & mask
        }
        let removed = values[slot]
        count -= 1
        // Shift later members of the probe run back into the hole, so lookups never need
        // tombstones.
        var hole = slot
        var next = slot
        while true {
            next = (next + 1) & mask
            let candidate = keys[next]
            if candidate == 0 { break }
            let ideal = home(of: candidate)
            let staysPut = hole <= next ? (hole < ideal && ideal <= next) : (hole < ideal || ideal <= next)
            if staysPut { continue }
            keys[hole] = candidate
            values[hole] = values[next]
            hole = next
        }
        keys[hole] = 0
        return removed
    }

    /// Empties the table and gives its storage back.
    mutating func removeAll() {
        self = IdentityTable()
    }

    private mutating func grow() {
        let oldKeys = keys
        let oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        shift -= 1
        count = 0
        for index in oldKeys.indices where oldKeys[index] != 0 {
            set(oldValues[index], for: ObjectIdentifier(bitPattern: oldKeys[index]))
        }
    }
}

extension ObjectIdentifier {
    fileprivate init(bitPattern: UInt) {
        self = unsafeBitCast(bitPattern, to: ObjectIdentifier.self)
    }
}
