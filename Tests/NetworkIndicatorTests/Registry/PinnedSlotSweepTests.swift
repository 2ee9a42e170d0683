import Foundation
import Testing

@testable import NetworkIndicator

/// The sweep around the slots pinned to opaque tokens: it packs live entries into free slots,
/// never moves a pinned one, and cuts the free tail.
@Suite("Task registry: the sweep around pinned slots")
struct PinnedSlotSweepTests {
    private final class Object {}

    @Test func theSweepPacksAroundPinnedSlots() {
        var registry = TaskRegistry()
        var objects: [Object] = []
        var pinned: [PinnedSlot] = []
        for index in 0..<200 {
            if index == 10 || index == 150 || index == 199 {
                pinned.append(registry.pin(label: nil, now: 0))
            } else {
                let object = Object()
                objects.append(object)
                registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
            }
        }
        // The last pinned entry has no task: still pinned, it must not move either.
        let result12 = registry.finishOne(pinned: pinned[2])
        #expect(result12 == .applied)
        objects.removeLast(180)  // 17 weak entries live: most slots are free
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 20)
        #expect(registry.slots.count == 200, "the tail ends at the last pinned slot")
        for slot in pinned {
            #expect(registry.slots[Int(slot.slot)].generation == slot.generation, "pinned slots did not move")
        }
        #expect(registry.hasOpenTask(pinned[0]))
        #expect(registry.hasOpenTask(pinned[1]))
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
        #expect(registry.slots.count == 200, "every free slot was taken before the array grew")
        for slot in pinned {
            #expect(registry.slots[Int(slot.slot)].generation == slot.generation)
        }
        #expect(registry.activeTaskCount == 17 + 2 + 180)
        for slot in pinned {
            registry.release(pinned: slot)
        }
        #expect(registry.activeTaskCount == 17 + 180)
        #expect(registry.pinnedCount == 0)
    }

    @Test func theSweepMovesLiveEntriesFromTheBackIntoFreeSlotsAroundPinnedOnes() {
        var registry = TaskRegistry()
        var objects: [Object] = []
        var pinned: [PinnedSlot] = []
        for index in 0..<200 {
            if index == 10 || index == 150 {
                pinned.append(registry.pin(label: nil, now: 0))
            } else {
                let object = Object()
                objects.append(object)
                registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: "\(index)", now: 0)
            }
        }
        objects.removeFirst(178)  // the 20 weak entries at slots 180 to 199 live
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 22)
        #expect(registry.slots.count == 151, "cut after the last pinned slot")
        let slots = objects.map { registry.table.value(for: ObjectIdentifier($0)).map(Int.init) ?? -1 }
        #expect(slots == Array(0...9) + Array(11...20), "moved into the first free slots, around slot 10")
        for slot in pinned {
            #expect(registry.slots[Int(slot.slot)].generation == slot.generation, "pinned slots did not move")
            #expect(registry.hasOpenTask(slot))
        }
        var kept: [AnyObject] = []
        let labels = Set(registry.records(keepingAlive: &kept).map(\.label))
        #expect(
            labels == Set((180..<200).map { "\($0)" } + ["NetworkActivityToken"]),
            "labels moved with their entries"
        )
        #expect(registry.finishOne(.key(ObjectIdentifier(objects[0]))) == .applied)
        #expect(registry.activeTaskCount == 21)
        #expect(registry.nextPinnedSlot == 0, "the slot just freed is the next one taken")
    }

    @Test func theSweepPacksLiveEntriesAtBothEndsLeavingNoFreeSlot() {
        var registry = TaskRegistry()
        var objects: [Object] = (0..<200).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        let slot = registry.pin(label: nil, now: 0)
        objects.removeSubrange(5..<195)  // five live entries at the front, five at the back
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 11)
        #expect(registry.slots.count == 201, "the pinned slot, the last, still ends the array")
        let slots = objects.map { registry.table.value(for: ObjectIdentifier($0)).map(Int.init) ?? -1 }
        #expect(slots == Array(0..<10), "the front entries stay, the back ones fill the next slots")
        #expect(registry.nextPinnedSlot == 10, "the first free slot is right after them")
        #expect(registry.hasOpenTask(slot))
    }

    @Test func withoutLiveEntriesAfterThePinnedOnesTheFreeTailIsCut() {
        var registry = TaskRegistry()
        let slot = registry.pin(label: nil, now: 0)
        var objects: [Object] = (0..<100).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        objects.removeAll()
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.slots.count == 1)
        #expect(registry.hasOpenTask(slot))
        #expect(registry.nextPinnedSlot == 1)
    }
}
