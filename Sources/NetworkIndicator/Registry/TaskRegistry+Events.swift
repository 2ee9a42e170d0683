import Foundation

/// Task events: while the tree records them (an output listens), each entry that begins or
/// ends adds one ``LoggedEvent`` to ``TaskRegistry/eventLog``, and the tree collects them after
/// the event (`IndicatorTree+TaskEvents.swift`). While nothing listens, `eventLog` is `nil` and
/// each begin or end pays one comparison.
extension TaskRegistry {
    /// One entry (a token, group or load, an opaque token, the push counter) that began (its
    /// first task) or ended (its last).
    struct LoggedEvent {
        let reference: TaskReference
        /// The entry as a snapshot shows it, read before it ended.
        let record: ActivityRecord
        /// `nil`: it began.
        let ending: NetworkActivityTaskEvent.Ending?
    }

    /// The push counter's reference in the log: a pair that is never pinned.
    static let counterReference = TaskReference.pinned(PinnedSlot(slot: -1, generation: 0))

    /// The entry at `index` began; `object` is its live token, if any (the caller holds it). An
    /// unlabelled token is named by its type, whose name is kept for the next token of the same
    /// type (`String(describing:)` costs more than the rest of the event).
    @inline(never)
    mutating func logBegan(at index: Int, object: AnyObject?) {
        var record = record(at: index, object: nil)
        if let object, !slots[index].hasLabel, slots[index].kind.isSwept {
            let type = ObjectIdentifier(Swift.type(of: object))
            if loggedTypeName?.type != type { loggedTypeName = (type, ActivityLabel.typeName(of: object)) }
            record.label = loggedTypeName?.name ?? record.label
            record.isTokenAlive = true
        }
        let event = LoggedEvent(reference: reference(at: index), record: record, ending: nil)
        eventLog?.append(event)
    }

    /// The entry at `index` ends, `ending`; read before its label and slot go. Its weak token is
    /// not loaded (a load could release a caller's last reference under the lock): the tree names
    /// it as its begin did.
    @inline(never)
    mutating func logEnded(at index: Int, _ ending: NetworkActivityTaskEvent.Ending) {
        let event = LoggedEvent(reference: reference(at: index), record: record(at: index, object: nil), ending: ending)
        eventLog?.append(event)
    }

    /// The push counter's first push (`nil`) or last pop.
    @inline(never)
    mutating func logCounter(_ ending: NetworkActivityTaskEvent.Ending?) {
        let event = LoggedEvent(reference: Self.counterReference, record: pushRecord, ending: ending)
        eventLog?.append(event)
    }

    /// Every open entry, and the counter, ends `ending` (a reset, the manager gone).
    mutating func logEverythingEnded(_ ending: NetworkActivityTaskEvent.Ending) {
        for index in slots.indices where !slots[index].isIdle { logEnded(at: index, ending) }
        if pushCount > 0 { logCounter(ending) }
    }
}
