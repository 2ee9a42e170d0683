import Foundation

/// Task events: while the tree records them (an output listens), each entry that begins or
/// ends adds one ``LoggedEvent`` to the tree's one ``TaskEventBuffer``, in the order they happen
/// across the tree's nodes, each stamped with its time; the tree's hop takes them
/// (`IndicatorTree+TaskEvents.swift`). While nothing listens, ``TaskRegistry/eventLog`` is `nil`
/// and each begin or end pays one comparison; the tree pays none (a recording node's schedule
/// asks for the hop, as it does for an output that wants counts).
extension TaskRegistry {
    /// One entry (a token, group or load, an opaque token, the push counter) that began (its
    /// first task) or ended (its last).
    struct LoggedEvent {
        let reference: TaskReference
        /// The entry as a snapshot shows it, read before it ended.
        var record: ActivityRecord
        /// `nil`: it began.
        let ending: NetworkActivityTaskEvent.Ending?
        /// When it ended (a begin's time is the record's).
        let endedAt: TimeInterval
    }

    /// The push counter's reference in the log: a pair that is never pinned.
    static let counterReference = TaskReference.pinned(PinnedSlot(slot: -1, generation: 0))

    /// The entry at `index` began; `object` is its live token, if any (the caller holds it). An
    /// unlabelled token is named by its type, whose name is kept for the next token of the same
    /// type (`String(describing:)` costs more than the rest of the event).
    @inline(never)
    mutating func logBegan(at index: Int, object: AnyObject?) {
        var record = record(at: index, object: nil)
        // Alive, labelled or not: the caller holds it.
        if object != nil { record.isTokenAlive = true }
        if let object, !slots[index].hasLabel, slots[index].kind.isSwept {
            let type = ObjectIdentifier(Swift.type(of: object))
            if loggedTypeName?.type != type { loggedTypeName = (type, ActivityLabel.typeName(of: object)) }
            record.label = loggedTypeName?.name ?? record.label
        }
        log(LoggedEvent(reference: reference(at: index), record: record, ending: nil, endedAt: record.startedAt))
    }

    /// The entry at `index` ends, `ending`, at `time`; read before its label and slot go. Its
    /// weak token is not loaded (a load could release a caller's last reference under the lock):
    /// the tree names it as its begin did.
    @inline(never)
    mutating func logEnded(at index: Int, _ ending: NetworkActivityTaskEvent.Ending, at time: TimeInterval) {
        let record = record(at: index, object: nil)
        log(LoggedEvent(reference: reference(at: index), record: record, ending: ending, endedAt: time))
    }

    /// ``logEnded(at:_:at:)`` at `time`'s reading, read here, out of the caller's line.
    @inline(never)
    mutating func logEnded(at index: Int, _ ending: NetworkActivityTaskEvent.Ending, time: inout EventTime) {
        logEnded(at: index, ending, at: time.now())
    }

    /// The push counter's first push (`nil`) or last pop, at `time`.
    @inline(never)
    mutating func logCounter(_ ending: NetworkActivityTaskEvent.Ending?, at time: TimeInterval) {
        log(LoggedEvent(reference: Self.counterReference, record: pushRecord, ending: ending, endedAt: time))
    }

    /// Every open entry, and the counter, ends `ending` at `time` (a reset, the manager gone).
    mutating func logEverythingEnded(_ ending: NetworkActivityTaskEvent.Ending, at time: TimeInterval) {
        for index in slots.indices where !slots[index].isIdle { logEnded(at: index, ending, at: time) }
        if pushCount > 0 { logCounter(ending, at: time) }
    }

    /// The live unlabelled caller's tokens with tasks open, each named by its type; the tokens
    /// loaded go to `keptAlive`, to release after the lock (one may be a token's last reference).
    mutating func typeNamesOfUnlabelledTokens(keepingAlive keptAlive: inout [AnyObject]) -> [(TaskReference, String)] {
        var names: [(TaskReference, String)] = []
        for index in slots.indices where !slots[index].isIdle && !slots[index].hasLabel && slots[index].kind.isSwept {
            guard let object = slots[index].token.load() else { continue }
            keptAlive.append(object)
            names.append((reference(at: index), ActivityLabel.typeName(of: object)))
        }
        return names
    }

    private func log(_ event: LoggedEvent) {
        eventLog?.events.append((eventNode, event))
    }
}

/// The task events of one tree since its last hop, in the order they happened, whichever node
/// logged them. A reference shared by the recording registries of one tree: they append, the
/// tree's hop takes (`IndicatorTree.takeTaskEvents()`). `@unchecked Sendable`: it is touched only
/// under the tree's lock, inside the tree's value.
final class TaskEventBuffer: @unchecked Sendable {
    var events: [(node: IndicatorTree.NodeID, event: TaskRegistry.LoggedEvent)] = []
}
