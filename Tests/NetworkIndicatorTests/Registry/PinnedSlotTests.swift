import Foundation
import Testing

@testable import NetworkIndicator

/// The slots pinned to opaque tokens: found by index, never taken by another entry and never
/// moved while their token lives, whatever happens to their tasks.
@Suite("Task registry: pinned slots")
struct PinnedSlotTests {
    private final class Object {}

    @Test func aPinnedEntryIsFoundByItsSlotAndNotInTheTable() {
        var registry = TaskRegistry()
        let slot = registry.pin(label: "upload", now: 0)
        #expect(registry.activeTaskCount == 1)
        #expect(registry.hasOpenTask(slot))
        #expect(registry.table.count == 0, "no hash lookup for opaque tokens")
        var kept: [AnyObject] = []
        #expect(registry.records(keepingAlive: &kept).map(\.label) == ["upload"])
        let result1 = registry.beginPinned(slot, label: nil, now: 1)
        #expect(result1)
        let result2 = registry.finishOne(pinned: slot)
        #expect(result2 == .applied)
        let result3 = registry.finishOne(pinned: slot)
        #expect(result3 == .applied)
        let result4 = registry.finishOne(pinned: slot)
        #expect(result4 == .stale, "no task left")
        #expect(registry.activeTaskCount == 0)
        #expect(!registry.hasOpenTask(slot))
        #expect(registry.entryCount == 1, "the slot stays pinned without a task")
        #expect(registry.records(keepingAlive: &kept).isEmpty)
    }

    /// The count of slots in use is the table's keys plus the pinned slots: it matches a count
    /// of the slots in use after every kind of change (pinned slots with and without tasks,
    /// tokens, a group, a dead entry replaced and one finished, a sweep that packs and trims, a
    /// reset, a release).
    @Test func theSlotsInUseAreTheTablesKeysAndThePinnedSlots() {
        var registry = TaskRegistry()
        func expectCounted(_ step: String) {
            #expect(registry.entryCount == registry.slots.filter(\.isInUse).count, "after \(step)")
        }
        // Pinned first, so that they lie at the front and the sweep below can trim the tail.
        let slot = registry.pin(label: nil, now: 0)
        let idleSlot = registry.pin(label: nil, now: 0)
        let ended = registry.finishOne(pinned: idleSlot)
        let reopened = registry.beginPinned(idleSlot, label: nil, now: 0)
        let finishedAgain = registry.finishOne(pinned: idleSlot)
        #expect(ended == .applied && reopened && finishedAgain == .applied)
        expectCounted("pinned slots, one without a task")
        var tokens: [Object] = (0..<120).map { _ in Object() }
        for token in tokens {
            registry.begin(ObjectIdentifier(token), object: token, kind: .token, label: nil, now: 0)
        }
        let group = Object()
        registry.begin(ObjectIdentifier(group), object: nil, kind: .group, label: "g", now: 0)
        expectCounted("begins")
        #expect(registry.entryCount == 123)
        // A key whose object died, begun again (an address reused) and finished once dead.
        let reusedKey = ObjectIdentifier(Object.self)
        var dead: Object? = Object()
        registry.begin(reusedKey, object: dead, kind: .token, label: nil, now: 0)
        dead = nil
        let newcomer = Object()
        registry.begin(reusedKey, object: newcomer, kind: .token, label: nil, now: 1)
        expectCounted("a dead entry replaced")
        #expect(registry.entryCount == 124)
        let finishedKey = ObjectIdentifier(TaskRegistry.self)
        var finished: Object? = Object()
        registry.begin(finishedKey, object: finished, kind: .token, label: nil, now: 0)
        finished = nil
        let outcome = registry.finishOne(.key(finishedKey))
        #expect(outcome == .tokenDead)
        expectCounted("a dead entry finished")
        registry.finishAll(ObjectIdentifier(tokens[0]))
        _ = registry.finishOne(.key(ObjectIdentifier(group)))
        expectCounted("finishes")
        #expect(registry.entryCount == 122)
        tokens.removeLast(100)
        _ = registry.sweep(now: 1, staleThreshold: nil)
        expectCounted("a sweep that packs")
        #expect(registry.entryCount == 22)
        #expect(registry.slots.count == 22, "packed and trimmed")
        registry.finishEverything()
        expectCounted("a reset")
        #expect(registry.entryCount == 2, "the two pinned slots stay")
        registry.release(pinned: slot)
        expectCounted("a release")
        #expect(registry.entryCount == 1)
        _ = (tokens, dead, finished, newcomer)
    }

    /// A labelled opaque token's label goes with its tasks: when the token is released with a
    /// task open, and when its tasks end before its release.
    @Test func aLabelGoesWithTheTasksOfItsOpaqueToken() {
        var registry = TaskRegistry()
        let releasedSlot = registry.pin(label: "upload", now: 0)
        let endedSlot = registry.pin(label: "download", now: 0)
        #expect(registry.labels.openLabelCount == 2)
        registry.release(pinned: releasedSlot)
        #expect(registry.labels.label(of: .pinned(releasedSlot)) == nil, "released with its task open")
        let finished = registry.finishOne(pinned: endedSlot)
        #expect(finished == .applied)
        #expect(registry.labels.openLabelCount == 0, "its tasks ended, the token still alive")
        registry.release(pinned: endedSlot)
        #expect(registry.entryCount == 0)
        #expect(registry.activeTaskCount == 0)
    }

    /// The pinned-slot calls find only a pinned entry: given the index of an entry of the table
    /// with the same key (the object begun as a caller's token), they find no opaque token's
    /// slot there and leave the entry alone.
    @Test func pinnedSlotCallsLeaveAnUnpinnedEntryWithTheSameKeyAlone() throws {
        var registry = TaskRegistry()
        let object = Object()
        let key = ObjectIdentifier(object)
        registry.begin(key, object: object, kind: .token, label: nil, now: 0)
        let index = try #require(registry.table.value(for: key))
        let slot = PinnedSlot(slot: index, generation: registry.slots[Int(index)].generation)
        #expect(!registry.hasOpenTask(slot))
        let begun = registry.beginPinned(slot, label: nil, now: 1)
        #expect(!begun)
        let finished = registry.finishOne(pinned: slot)
        #expect(finished == .stale)
        registry.release(pinned: slot)
        #expect(registry.activeTaskCount == 1, "the caller's token keeps its task")
        #expect(registry.table.value(for: key) == index, "and its entry")
        let finishedByKey = registry.finishOne(.key(key))
        #expect(finishedByKey == .applied)
    }

    @Test func aFinishedPinnedEntryIsBegunAgainInItsSlotWithItsNewLabel() {
        var registry = TaskRegistry()
        let slot = registry.pin(label: "first", now: 0)
        let result5 = registry.finishOne(pinned: slot)
        #expect(result5 == .applied)
        let other = Object()
        registry.begin(ObjectIdentifier(other), object: other, kind: .token, label: nil, now: 0)
        #expect(registry.table.value(for: ObjectIdentifier(other)) != slot.slot, "a pinned slot is never handed out")
        let result6 = registry.beginPinned(slot, label: "second", now: 5)
        #expect(result6)
        var kept: [AnyObject] = []
        let record = registry.records(keepingAlive: &kept).first { $0.kind == .opaqueToken }
        #expect(record?.label == "second")
        #expect(record?.startedAt == 5)
        #expect(registry.activeTaskCount == 2)
    }

    @Test func aReleasedSlotIsReusedAndTheOldKeyFindsNothingThere() {
        var registry = TaskRegistry()
        let slot = registry.pin(label: nil, now: 0)
        registry.release(pinned: slot)
        #expect(registry.activeTaskCount == 0)
        #expect(registry.entryCount == 0)
        #expect(registry.pinnedCount == 0)
        let other = Object()
        registry.begin(ObjectIdentifier(other), object: other, kind: .token, label: nil, now: 0)
        #expect(registry.table.value(for: ObjectIdentifier(other)) == slot.slot, "the freed slot is taken first")
        // A stale index: nothing changes, nothing is open.
        let result7 = registry.finishOne(pinned: slot)
        #expect(result7 == .stale)
        let begun8 = registry.beginPinned(slot, label: nil, now: 0)
        #expect(!begun8)
        registry.release(pinned: slot)
        #expect(!registry.hasOpenTask(slot))
        #expect(!registry.hasOpenTask(PinnedSlot(slot: 99, generation: 0)), "an index out of range is no open task")
        #expect(registry.count(for: ObjectIdentifier(other)) == 1)
        #expect(registry.activeTaskCount == 1)
    }

    /// A released token's pair is stale once its slot is pinned again: the generation compare
    /// turns each pinned-slot call given it into "no open task", and the slot's new token keeps
    /// its tasks, its label and its slot.
    @Test func aStalePairIsIgnoredAfterItsSlotIsPinnedAgain() {
        var registry = TaskRegistry()
        let old = registry.pin(label: "old", now: 0)
        registry.release(pinned: old)
        let new = registry.pin(label: "new", now: 1)
        #expect(new.slot == old.slot, "the released slot is reused")
        #expect(new.generation != old.generation)
        #expect(!registry.hasOpenTask(old))
        let begun = registry.beginPinned(old, label: "stale", now: 2)
        #expect(!begun)
        let finished = registry.finishOne(pinned: old)
        #expect(finished == .stale)
        registry.release(pinned: old)
        #expect(registry.hasOpenTask(new))
        #expect(registry.activeTaskCount == 1)
        #expect(registry.pinnedCount == 1)
        var kept: [AnyObject] = []
        #expect(registry.records(keepingAlive: &kept).map(\.label) == ["new"])
        let finishedNew = registry.finishOne(pinned: new)
        #expect(finishedNew == .applied)
    }

    /// Slots cut from the array by a sweep forget nothing: a slot appended again starts above the
    /// generations it had, so a pair released before the cut stays stale.
    @Test func aStalePairStaysStaleAfterItsSlotIsCutAndAppendedAgain() {
        var registry = TaskRegistry()
        final class Held {}
        var objects: [Held] = (0..<100).map { _ in Held() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        let old = registry.pin(label: nil, now: 0)
        #expect(old.slot == 100)
        registry.release(pinned: old)
        objects.removeAll()
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.slots.isEmpty, "every slot cut")
        var pairs: [PinnedSlot] = []
        for _ in 0...100 { pairs.append(registry.pin(label: nil, now: 2)) }
        #expect(pairs[100].slot == old.slot)
        #expect(!registry.hasOpenTask(old))
        registry.release(pinned: old)
        #expect(registry.hasOpenTask(pairs[100]))
        #expect(registry.activeTaskCount == 101)
    }

    /// A sweep's compaction moves entries, not generations: a released slot that a moved entry
    /// filled, once pinned again, is in a later generation than the released pair.
    @Test func aStalePairStaysStaleAfterTheSweepMovesAnEntryIntoItsSlot() {
        var registry = TaskRegistry()
        let old = registry.pin(label: nil, now: 0)
        var objects: [Object] = (0..<200).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        registry.release(pinned: old)
        objects.removeFirst(180)  // the 20 entries at slots 181 to 200 live
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.table.value(for: ObjectIdentifier(objects[0])) == old.slot, "moved into the slot")
        for object in objects.reversed() { registry.finishAll(ObjectIdentifier(object)) }
        let new = registry.pin(label: nil, now: 2)
        #expect(new.slot == old.slot)
        #expect(!registry.hasOpenTask(old))
        registry.release(pinned: old)
        #expect(registry.hasOpenTask(new))
    }

    /// A reset with no pinned slot empties the array; the generations it held are not reused.
    @Test func aStalePairStaysStaleAfterAResetEmptiesTheSlots() {
        var registry = TaskRegistry()
        let old = registry.pin(label: nil, now: 0)
        registry.release(pinned: old)
        registry.finishEverything()
        #expect(registry.slots.isEmpty)
        let new = registry.pin(label: nil, now: 1)
        #expect(new.slot == old.slot)
        #expect(!registry.hasOpenTask(old))
        #expect(registry.hasOpenTask(new))
    }

    /// Finishing every task of an opaque token, one by one, keeps its slot pinned for its next begin.
    @Test func finishingEveryTaskKeepsTheSlot() {
        var registry = TaskRegistry()
        let slot = registry.pin(label: nil, now: 0)
        let result9 = registry.beginPinned(slot, label: nil, now: 0)
        #expect(result9)
        let outcomes = [registry.finishOne(pinned: slot), registry.finishOne(pinned: slot)]
        #expect(outcomes == [.applied, .applied])
        #expect(registry.activeTaskCount == 0)
        #expect(registry.pinnedCount == 1)
        #expect(registry.nextPinnedSlot != slot.slot)
        let result10 = registry.beginPinned(slot, label: nil, now: 0)
        #expect(result10)
        #expect(registry.activeTaskCount == 1)
    }

    @Test func removeAllEndsEveryTaskAndKeepsThePinnedSlots() {
        var registry = TaskRegistry()
        let before = Object()
        registry.begin(ObjectIdentifier(before), object: before, kind: .token, label: "weak", now: 0)
        let slot = registry.pin(label: "opaque", now: 0)
        let after = Object()
        registry.begin(ObjectIdentifier(after), object: after, kind: .token, label: nil, now: 0)
        registry.push(now: 0)
        registry.finishEverything()
        #expect(registry.activeTaskCount == 0)
        #expect(registry.sweptEntryCount == 0)
        #expect(registry.entryCount == 1)
        #expect(!registry.hasOpenTask(slot))
        #expect(registry.count(for: ObjectIdentifier(before)) == 0)
        // New entries take the freed slots, never the pinned one.
        for object in [before, after] {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
            #expect(registry.table.value(for: ObjectIdentifier(object)) != slot.slot)
        }
        #expect(registry.slots.count == 3, "the freed slots were reused")
        let result11 = registry.beginPinned(slot, label: nil, now: 0)
        #expect(result11)
        var kept: [AnyObject] = []
        let labels = registry.records(keepingAlive: &kept).map(\.label).sorted()
        #expect(labels == ["NetworkActivityToken", "Object", "Object"], "the old label went with the reset")
        #expect(registry.activeTaskCount == 3)
    }
}

/// The pinned-slot calls of the registry, given a ``PinnedSlot``.
extension TaskRegistry {
    /// The slot that ``pin(label:now:)`` takes next.
    var nextPinnedSlot: Int32 { firstFreeSlot >= 0 ? firstFreeSlot : Int32(slots.count) }

    func hasOpenTask(_ pinned: PinnedSlot) -> Bool {
        openTaskCount(.pinned(pinned)) > 0
    }

    mutating func finishOne(pinned: PinnedSlot) -> TaskEvent.Outcome {
        finishOne(.pinned(pinned))
    }

    mutating func release(pinned: PinnedSlot) {
        release(pinned)
    }
}
