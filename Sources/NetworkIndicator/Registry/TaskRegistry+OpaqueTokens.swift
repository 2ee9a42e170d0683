import Foundation

/// What the registry issues to a new opaque token: its slot and the slot's generation, which name
/// the token's entry until the token is released, then nothing.
struct PinnedSlot: Hashable, Sendable {
    let slot: Int32
    let generation: UInt32
}

/// Opaque tokens: a ``NetworkActivityToken`` of this manager is not in the identity table.
/// ``pin(label:now:)`` issues it a slot and the slot's generation (a ``PinnedSlot``); the slot stays
/// **pinned** until the token is released: nothing else takes it and no compaction moves it, so
/// the token finds its entry without hashing. A release bumps the generation, which every call
/// here compares, so a stale pair is "no open task", never a change to the slot's next owner.
extension TaskRegistry {
    /// Pins a free slot to a new opaque token and begins its first task (begun at `now`,
    /// labelled `label`); returns the slot and its generation, which the token carries.
    mutating func pin(label: String?, site: CallSite = .none, now: @autoclosure () -> TimeInterval) -> PinnedSlot {
        openPinned(at: Int(takeFreeSlot()), label: label, site: site, now: now())
    }

    /// Begins one more task of the opaque token `pinned` names; the first since its tasks ended
    /// opens a new entry (begun at `now`, labelled `label`). `false` (and no change) if the slot
    /// is not pinned in that generation.
    mutating func beginPinned(
        _ pinned: PinnedSlot,
        label: String?,
        site: CallSite = .none,
        now: @autoclosure () -> TimeInterval
    ) -> Bool {
        guard isPinned(pinned) else { return false }
        let index = Int(pinned.slot)
        if slots[index].count == 0 {
            openPinned(at: index, label: label, site: site, now: now())
        } else {
            slots[index].count += 1
            activeTaskCount += 1
        }
        return true
    }

    /// Makes the slot at `index` (free, or pinned with no task) the pinned entry of an opaque
    /// token's first task, begun at `now` and labelled `label`, and logs its begin; returns the
    /// slot and its generation.
    @discardableResult
    private mutating func openPinned(at index: Int, label: String?, site: CallSite, now: TimeInterval) -> PinnedSlot {
        slots[index].fill(kind: .opaqueToken, hasLabel: label != nil, site: site, now: now, isPinned: true)
        activeTaskCount += 1
        let pinned = PinnedSlot(slot: Int32(index), generation: slots[index].generation)
        if let label { labels.begin(.pinned(pinned), label: label) }
        if eventLog != nil { logBegan(at: index, object: nil) }
        return pinned
    }

    /// Ends one task of the opaque token `pinned` names; the slot stays pinned. `.stale` if the
    /// pair is stale or the token has no open task.
    mutating func finishPinned(_ pinned: PinnedSlot, time: inout EventTime) -> TaskEvent.Outcome {
        let index = Int(pinned.slot)
        guard isPinned(pinned), slots[index].count > 0 else { return .stale }
        if slots[index].count == 1 {
            if eventLog != nil { logEnded(at: index, .finished, time: &time) }
            // Remembered for the report of a second finish; the release then looks up no label.
            if slots[index].hasLabel {
                labels.end(.pinned(pinned))
                slots[index].hasLabel = false
            } else if labels.mayRemember(.pinned(pinned)) {
                labels.forget(.pinned(pinned))
            }
        }
        slots[index].count -= 1
        activeTaskCount -= 1
        return .applied
    }

    /// The opaque token `pinned` names is released (or done for good): its tasks end, the slot
    /// is freed and its generation bumped, so that the pair goes stale. A stale pair (another
    /// generation, or a slot out of range) changes nothing.
    mutating func release(_ pinned: PinnedSlot, time: inout EventTime) {
        guard isPinned(pinned) else { return }
        let slot = pinned.slot
        let index = Int(slot)
        if eventLog != nil, slots[index].count > 0 { logEnded(at: index, .released, time: &time) }
        activeTaskCount -= slots[index].count
        if slots[index].hasLabel { labels.end(.pinned(pinned), remembering: false) }
        slots[index].unpin(next: firstFreeSlot)
        firstFreeSlot = slot
    }

    /// What a finish of `reference` that matched no task names it by (``NetworkIndicatorDiagnostic/label``):
    /// the label its last task was begun with if remembered (``TaskLabels/endedLabel(of:)``);
    /// else, for an opaque token, its open task's label or where that task began; `nil`
    /// otherwise (the caller names the token by its type).
    func lateFinishLabel(of reference: TaskReference) -> String? {
        if let label = labels.endedLabel(of: reference) { return label }
        guard case .pinned(let pinned) = reference, isPinned(pinned) else { return nil }
        // An open one: another manager's finish asks (a scope's token finished on the app's).
        return labels.label(of: reference) ?? slots[Int(pinned.slot)].site.name
    }

    /// The stale-pair check: `slot` is in range, pinned, and in `generation`.
    func isPinned(_ pinned: PinnedSlot) -> Bool {
        let index = Int(pinned.slot)
        return index >= 0 && index < slots.count && slots[index].isPinned
            && slots[index].generation == pinned.generation
    }

    /// Takes the slot at the head of the free list, or appends one; the caller fills it.
    private mutating func takeFreeSlot() -> Int32 {
        if firstFreeSlot >= 0 {
            let slot = firstFreeSlot
            firstFreeSlot = slots[Int(slot)].nextFreeSlot
            return slot
        }
        slots.append(Entry(generation: appendedGeneration))
        return Int32(slots.count - 1)
    }
}

extension TaskRegistry.Entry {
    /// Frees a slot pinned to an opaque token, ending its tasks and bumping its generation, in one write.
    mutating func unpin(next: Int32) {
        isPinned = false
        generation &+= 1
        free(next: next)
    }
}
