/// Every label of one registry, in one store: the labels of the open labelled tokens, and those
/// of the last ``endedCapacity`` labelled tokens whose tasks all ended, so that a late (double)
/// finish names the task as begun ("upload"), not by its token's type.
///
/// A token is named by its ``TaskReference``: a caller's by its identity, an opaque one by its
/// pinned slot and generation, which no later token shares. An ended caller's token is kept with
/// a weak reference to it, so an object later at the same address never gets a dead token's
/// label. Only labelled tokens come here (an entry's `hasLabel` says so without a lookup); an
/// unlabelled token's end pays one mask test (``mayRemember(_:)``), and a scan only if its bit
/// is set, to forget an older run's label.
struct TaskLabels {
    static let endedCapacity = 16

    private struct Ended {
        let reference: TaskReference
        /// The caller's token, for a `.key` reference.
        let token: WeakWrapper?
        let label: String
    }

    /// The labels of the open labelled tokens.
    private var open: [TaskReference: String] = [:]
    /// The label of the last caller's token whose tasks a finish found dead, for that finish's
    /// report (``deadLabel(of:)``); a dead token is never remembered among the
    /// ended ones (it could only push a live one's label out).
    private var lastDead: (key: ObjectIdentifier, label: String)?
    /// Oldest first, so that a token remembered twice is found by its newer label.
    private var ended: [Ended] = []
    /// One bit per remembered token, chosen by ``bit(of:)``: the union over `ended`.
    private var rememberedBits: UInt64 = 0

    /// How many open tokens have a label.
    var openLabelCount: Int { open.count }

    /// The open token `reference` was begun with `label`.
    mutating func begin(_ reference: TaskReference, label: String) {
        open[reference] = label
    }

    /// The label of the open token `reference`.
    func label(of reference: TaskReference) -> String? {
        open[reference]
    }

    /// The tasks of `reference` ended: its label leaves the open ones and, `remembering`, is
    /// kept among the ended ones, forgetting the oldest if full. A caller's token is remembered
    /// only with its weak reference `token` (without, its label could name a later object at its
    /// address); an opaque token needs none.
    mutating func end(_ reference: TaskReference, token: WeakWrapper? = nil, remembering: Bool = true) {
        guard let label = open.removeValue(forKey: reference), remembering else { return }
        if case .key = reference, token == nil { return }
        remember(label, of: reference, token: token)
    }

    /// A finish found the token `key` dead: its label, if any, leaves the open ones and is kept
    /// for that finish's report alone, in place of the last dead token's.
    mutating func endDead(_ key: ObjectIdentifier) {
        lastDead = open.removeValue(forKey: .key(key)).map { (key, $0) }
    }

    /// The label of the dead token `key` that the last finish to find one ended.
    func deadLabel(of key: ObjectIdentifier) -> String? {
        lastDead?.key == key ? lastDead?.label : nil
    }

    /// Whether the token `reference` may have a label remembered: `false` for certain, `true`
    /// for one in 64 references that have none. One test before a ``forget(_:)``.
    func mayRemember(_ reference: TaskReference) -> Bool {
        rememberedBits & Self.bit(of: reference) != 0
    }

    /// The tasks of `reference` ended, begun without a label: a late finish names it by its type,
    /// not by the label of an older run.
    mutating func forget(_ reference: TaskReference) {
        ended.removeAll { $0.reference == reference }
        recountBits()
    }

    private mutating func remember(_ label: String, of reference: TaskReference, token: WeakWrapper?) {
        if ended.count == Self.endedCapacity {
            ended.removeFirst()
            recountBits()
        }
        ended.append(Ended(reference: reference, token: token, label: label))
        rememberedBits |= Self.bit(of: reference)
    }

    /// After a token left `ended`: the bits of those left.
    private mutating func recountBits() {
        rememberedBits = ended.reduce(0) { $0 | Self.bit(of: $1.reference) }
    }

    /// A reference's bit: six bits of an identity above its 16-byte alignment, or of a slot.
    private static func bit(of reference: TaskReference) -> UInt64 {
        let bits: UInt =
            switch reference {
            case .key(let key): UInt(bitPattern: Int(bitPattern: key)) &>> 4
            case .pinned(let pinned): UInt(truncatingIfNeeded: pinned.slot)
            }
        return 1 &<< UInt64(bits & 63)
    }

    /// The label the token `reference` was last begun with, if it is among the last
    /// ``endedCapacity`` ended and (a caller's token) still alive. Called with the lock held, for a
    /// token the caller still holds: the weak reference yields that token (or `nil`), so no
    /// object is released here.
    func endedLabel(of reference: TaskReference) -> String? {
        guard let last = ended.lastIndex(where: { $0.reference == reference }) else { return nil }
        guard var token = ended[last].token else { return ended[last].label }
        return token.load() != nil ? ended[last].label : nil
    }
}

extension TaskRegistry {
    func label(at index: Int) -> String? {
        guard slots[index].hasLabel else { return nil }
        return labels.label(of: reference(at: index))
    }

    /// Before a reset: ends the labels of the open labelled entries, in slot order, remembering
    /// those a late finish may ask for (an opaque token's, a caller's weak token's), and forgets
    /// the older labels of the open unlabelled ones; loads no weak reference (a load here could
    /// release a token's last owner under the lock).
    mutating func endLabelsForReset() {
        for index in slots.indices where !slots[index].isIdle && slots[index].hasLabel {
            labels.end(reference(at: index), token: slots[index].kind.isSwept ? slots[index].token : nil)
        }
        for index in slots.indices where !slots[index].isIdle && !slots[index].hasLabel {
            let reference = reference(at: index)
            if labels.mayRemember(reference) { labels.forget(reference) }
        }
    }
}
