import Testing

@testable import NetworkIndicator

/// The slots pinned to opaque tokens: found by index, never taken by another entry and never
/// moved while their token lives, whatever happens to their tasks.
@Suite("Task registry: pinned slots")
struct PinnedSlotTests {
    private final class Object {}

    /// Pins a new entry to `object` (as the manager does for a new opaque token); returns its slot.
    private func pin(_ object: Object, in registry: inout TaskRegistry, label: String? = nil) -> Int32 {
        let slot = registry.nextPinnedSlot
        registry.beginPinned(newAt: slot, key: ObjectIdentifier(object), label: label, now: 0)
        return slot
    }

    @Test func aPinnedEntryIsFoundByItsSlotAndNotInTheTable() {
        var registry = TaskRegistry()
        let opaque = Object()
        let slot = pin(opaque, in: &registry, label: "upload")
        let key = ObjectIdentifier(opaque)
        #expect(registry.activeTaskCount == 1)
        #expect(registry.hasOpenTask(pinnedAt: slot, key: key))
        #expect(registry.table.value(for: key) == nil, "no hash lookup for opaque tokens")
        var kept: [AnyObject] = []
        #expect(registry.records(keepingAlive: &kept).map(\.label) == ["upload"])
        let result1 = registry.beginPinned(at: slot, key: key, label: nil, now: 1)
        #expect(result1)
        let result2 = registry.finishOnePinned(at: slot, key: key)
        #expect(result2 == .finished)
        let result3 = registry.finishOnePinned(at: slot, key: key)
        #expect(result3 == .finished)
        let result4 = registry.finishOnePinned(at: slot, key: key)
        #expect(result4 == .unknown, "no task left")
        #expect(registry.activeTaskCount == 0)
        #expect(!registry.hasOpenTask(pinnedAt: slot, key: key))
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
            #expect(registry.entryCount == registry.entries.filter(\.isInUse).count, "after \(step)")
        }
        // Pinned first, so that they lie at the front and the sweep below can trim the tail.
        let opaque = Object()
        let slot = pin(opaque, in: &registry)
        let idle = Object()
        let idleSlot = pin(idle, in: &registry)
        registry.finishAllPinned(at: idleSlot, key: ObjectIdentifier(idle), unpinning: false)
        let reopened = registry.beginPinned(at: idleSlot, key: ObjectIdentifier(idle), label: nil, now: 0)
        let finishedAgain = registry.finishOnePinned(at: idleSlot, key: ObjectIdentifier(idle))
        #expect(reopened && finishedAgain == .finished)
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
        let outcome = registry.finishOne(finishedKey)
        #expect(outcome == .tokenDead)
        expectCounted("a dead entry finished")
        registry.finishAll(ObjectIdentifier(tokens[0]))
        _ = registry.finishOne(ObjectIdentifier(group))
        expectCounted("finishes")
        #expect(registry.entryCount == 122)
        tokens.removeLast(100)
        _ = registry.sweep(now: 1, staleThreshold: nil)
        expectCounted("a sweep that packs")
        #expect(registry.entryCount == 22)
        #expect(registry.entries.count == 22, "packed and trimmed")
        registry.removeAll()
        expectCounted("a reset")
        #expect(registry.entryCount == 2, "the two pinned slots stay")
        registry.finishAllPinned(at: slot, key: ObjectIdentifier(opaque), unpinning: true)
        expectCounted("a release")
        #expect(registry.entryCount == 1)
        _ = (tokens, dead, finished, newcomer)
    }

    /// A labelled opaque token's label goes with its tasks: when the token is released with a
    /// task open, and when its tasks end before its release.
    @Test func aLabelGoesWithTheTasksOfItsOpaqueToken() {
        var registry = TaskRegistry()
        let released = Object()
        let releasedSlot = pin(released, in: &registry, label: "upload")
        let ended = Object()
        let endedSlot = pin(ended, in: &registry, label: "download")
        #expect(registry.labels.count == 2)
        registry.finishAllPinned(at: releasedSlot, key: ObjectIdentifier(released), unpinning: true)
        #expect(registry.labels[ObjectIdentifier(released)] == nil, "released with its task open")
        registry.finishAllPinned(at: endedSlot, key: ObjectIdentifier(ended), unpinning: false)
        #expect(registry.labels.isEmpty, "its tasks ended, the token still alive")
        registry.finishAllPinned(at: endedSlot, key: ObjectIdentifier(ended), unpinning: true)
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
        let slot = try #require(registry.table.value(for: key))
        #expect(!registry.hasOpenTask(pinnedAt: slot, key: key))
        let begun = registry.beginPinned(at: slot, key: key, label: nil, now: 1)
        #expect(!begun)
        let finished = registry.finishOnePinned(at: slot, key: key)
        #expect(finished == .unknown)
        registry.finishAllPinned(at: slot, key: key, unpinning: true)
        #expect(registry.activeTaskCount == 1, "the caller's token keeps its task")
        #expect(registry.table.value(for: key) == slot, "and its entry")
        let finishedByKey = registry.finishOne(key)
        #expect(finishedByKey == .finished)
    }

    @Test func aFinishedPinnedEntryIsBegunAgainInItsSlotWithItsNewLabel() {
        var registry = TaskRegistry()
        let opaque = Object()
        let slot = pin(opaque, in: &registry, label: "first")
        let key = ObjectIdentifier(opaque)
        let result5 = registry.finishOnePinned(at: slot, key: key)
        #expect(result5 == .finished)
        let other = Object()
        registry.begin(ObjectIdentifier(other), object: other, kind: .token, label: nil, now: 0)
        #expect(registry.table.value(for: ObjectIdentifier(other)) != slot, "a pinned slot is never handed out")
        let result6 = registry.beginPinned(at: slot, key: key, label: "second", now: 5)
        #expect(result6)
        var kept: [AnyObject] = []
        let record = registry.records(keepingAlive: &kept).first { $0.kind == .opaqueToken }
        #expect(record?.label == "second")
        #expect(record?.startedAt == 5)
        #expect(registry.activeTaskCount == 2)
    }

    @Test func aReleasedSlotIsReusedAndTheOldKeyFindsNothingThere() {
        var registry = TaskRegistry()
        let opaque = Object()
        let slot = pin(opaque, in: &registry)
        let key = ObjectIdentifier(opaque)
        registry.finishAllPinned(at: slot, key: key, unpinning: true)
        #expect(registry.activeTaskCount == 0)
        #expect(registry.entryCount == 0)
        #expect(registry.pinnedCount == 0)
        let other = Object()
        registry.begin(ObjectIdentifier(other), object: other, kind: .token, label: nil, now: 0)
        #expect(registry.table.value(for: ObjectIdentifier(other)) == slot, "the freed slot is taken first")
        // A stale index: nothing changes, nothing is open.
        let result7 = registry.finishOnePinned(at: slot, key: key)
        #expect(result7 == .unknown)
        let begun8 = registry.beginPinned(at: slot, key: key, label: nil, now: 0)
        #expect(!begun8)
        registry.finishAllPinned(at: slot, key: key, unpinning: true)
        #expect(!registry.hasOpenTask(pinnedAt: slot, key: key))
        #expect(!registry.hasOpenTask(pinnedAt: 99, key: key), "an index out of range is no open task")
        #expect(registry.count(for: ObjectIdentifier(other)) == 1)
        #expect(registry.activeTaskCount == 1)
    }

    @Test func endingWithoutUnpinningKeepsTheSlot() {
        var registry = TaskRegistry()
        let opaque = Object()
        let slot = pin(opaque, in: &registry)
        let key = ObjectIdentifier(opaque)
        let result9 = registry.beginPinned(at: slot, key: key, label: nil, now: 0)
        #expect(result9)
        registry.finishAllPinned(at: slot, key: key, unpinning: false)
        #expect(registry.activeTaskCount == 0)
        #expect(registry.pinnedCount == 1)
        #expect(registry.nextPinnedSlot != slot)
        let result10 = registry.beginPinned(at: slot, key: key, label: nil, now: 0)
        #expect(result10)
        #expect(registry.activeTaskCount == 1)
    }

    @Test func removeAllEndsEveryTaskAndKeepsThePinnedSlots() {
        var registry = TaskRegistry()
        let before = Object()
        registry.begin(ObjectIdentifier(before), object: before, kind: .token, label: "weak", now: 0)
        let opaque = Object()
        let slot = pin(opaque, in: &registry, label: "opaque")
        let key = ObjectIdentifier(opaque)
        let after = Object()
        registry.begin(ObjectIdentifier(after), object: after, kind: .token, label: nil, now: 0)
        registry.push(now: 0)
        registry.removeAll()
        #expect(registry.activeTaskCount == 0)
        #expect(registry.sweptEntryCount == 0)
        #expect(registry.entryCount == 1)
        #expect(!registry.hasOpenTask(pinnedAt: slot, key: key))
        #expect(registry.count(for: ObjectIdentifier(before)) == 0)
        // New entries take the freed slots, never the pinned one.
        for object in [before, after] {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
            #expect(registry.table.value(for: ObjectIdentifier(object)) != slot)
        }
        #expect(registry.entries.count == 3, "the freed slots were reused")
        let result11 = registry.beginPinned(at: slot, key: key, label: nil, now: 0)
        #expect(result11)
        var kept: [AnyObject] = []
        let labels = registry.records(keepingAlive: &kept).map(\.label).sorted()
        #expect(labels == ["NetworkActivityToken", "Object", "Object"], "the old label went with the reset")
        #expect(registry.activeTaskCount == 3)
    }

    @Test func theSweepPacksAroundPinnedSlots() {
        var registry = TaskRegistry()
        var objects: [Object] = []
        var pinned: [(object: Object, slot: Int32)] = []
        for index in 0..<200 {
            if index == 10 || index == 150 || index == 199 {
                let opaque = Object()
                pinned.append((opaque, pin(opaque, in: &registry)))
            } else {
                let object = Object()
                objects.append(object)
                registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
            }
        }
        // The last pinned entry has no task: still pinned, it must not move either.
        let result12 = registry.finishOnePinned(at: pinned[2].slot, key: ObjectIdentifier(pinned[2].object))
        #expect(result12 == .finished)
        objects.removeLast(180)  // 17 weak entries live: most slots are free
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 20)
        #expect(registry.entries.count == 200, "the tail ends at the last pinned slot")
        for (object, slot) in pinned {
            #expect(registry.entries[Int(slot)].key == ObjectIdentifier(object), "pinned slots did not move")
        }
        #expect(registry.hasOpenTask(pinnedAt: pinned[0].slot, key: ObjectIdentifier(pinned[0].object)))
        #expect(registry.hasOpenTask(pinnedAt: pinned[1].slot, key: ObjectIdentifier(pinned[1].object)))
        #expect(objects.allSatisfy { registry.count(for: ObjectIdentifier($0)) == 1 }, "moved entries still found")
        #expect(
            objects.allSatisfy { registry.table.value(for: ObjectIdentifier($0))! < 18 },
            "already at the front, around slot 10"
        )
        // New begins fill the free slots and skip the pinned ones.
        let newcomers = (0..<180).map { _ in Object() }
        for object in newcomers {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 2)
        }
        #expect(registry.entries.count == 200, "every free slot was taken before the array grew")
        for (object, slot) in pinned {
            #expect(registry.entries[Int(slot)].key == ObjectIdentifier(object))
        }
        #expect(registry.activeTaskCount == 17 + 2 + 180)
        for (object, slot) in pinned {
            registry.finishAllPinned(at: slot, key: ObjectIdentifier(object), unpinning: true)
        }
        #expect(registry.activeTaskCount == 17 + 180)
        #expect(registry.pinnedCount == 0)
    }

    @Test func theSweepMovesLiveEntriesFromTheBackIntoFreeSlotsAroundPinnedOnes() {
        var registry = TaskRegistry()
        var objects: [Object] = []
        var pinned: [(object: Object, slot: Int32)] = []
        for index in 0..<200 {
            if index == 10 || index == 150 {
                let opaque = Object()
                pinned.append((opaque, pin(opaque, in: &registry)))
            } else {
                let object = Object()
                objects.append(object)
                registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: "\(index)", now: 0)
            }
        }
        objects.removeFirst(178)  // the 20 weak entries at slots 180 to 199 live
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 22)
        #expect(registry.entries.count == 151, "cut after the last pinned slot")
        let slots = objects.map { registry.table.value(for: ObjectIdentifier($0)).map(Int.init) ?? -1 }
        #expect(slots == Array(0...9) + Array(11...20), "moved into the first free slots, around slot 10")
        for (object, slot) in pinned {
            #expect(registry.entries[Int(slot)].key == ObjectIdentifier(object), "pinned slots did not move")
            #expect(registry.hasOpenTask(pinnedAt: slot, key: ObjectIdentifier(object)))
        }
        var kept: [AnyObject] = []
        let labels = Set(registry.records(keepingAlive: &kept).map(\.label))
        #expect(
            labels == Set((180..<200).map { "\($0)" } + ["NetworkActivityToken"]),
            "labels moved with their entries"
        )
        #expect(registry.finishOne(ObjectIdentifier(objects[0])) == .finished)
        #expect(registry.activeTaskCount == 21)
        #expect(registry.nextPinnedSlot == 0, "the slot just freed is the next one taken")
    }

    @Test func theSweepPacksLiveEntriesAtBothEndsLeavingNoFreeSlot() {
        var registry = TaskRegistry()
        var objects: [Object] = (0..<200).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        let opaque = Object()
        let slot = pin(opaque, in: &registry)
        objects.removeSubrange(5..<195)  // five live entries at the front, five at the back
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 11)
        #expect(registry.entries.count == 201, "the pinned slot, the last, still ends the array")
        let slots = objects.map { registry.table.value(for: ObjectIdentifier($0)).map(Int.init) ?? -1 }
        #expect(slots == Array(0..<10), "the front entries stay, the back ones fill the next slots")
        #expect(registry.nextPinnedSlot == 10, "the first free slot is right after them")
        #expect(registry.hasOpenTask(pinnedAt: slot, key: ObjectIdentifier(opaque)))
    }

    @Test func withoutLiveEntriesAfterThePinnedOnesTheFreeTailIsCut() {
        var registry = TaskRegistry()
        let opaque = Object()
        let slot = pin(opaque, in: &registry)
        var objects: [Object] = (0..<100).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        objects.removeAll()
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entries.count == 1)
        #expect(registry.hasOpenTask(pinnedAt: slot, key: ObjectIdentifier(opaque)))
        #expect(registry.nextPinnedSlot == 1)
    }
}
