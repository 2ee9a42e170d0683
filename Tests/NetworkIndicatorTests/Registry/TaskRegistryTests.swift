import Testing

@testable import NetworkIndicator

/// The registry as a plain value: identity, counts and address reuse without malloc's help.
@Suite("Task registry")
struct TaskRegistryTests {
    private final class Object {}
    private final class Work: NetworkActivityCancellable, Sendable {
        func cancel() {}
    }

    /// A late finish is absorbed only while the cancelled object lives: once it died, its key
    /// may name a newcomer, whose finish is reported as unknown and forgets the record.
    @Test func aCancelledObjectsRecordEndsWithTheObject() {
        var registry = TaskRegistry()
        var work: Work? = Work()
        let key = ObjectIdentifier(work!)
        registry.begin(key, object: work, kind: .load, label: nil, now: 0)
        registry.begin(key, object: work, kind: .load, label: nil, now: 0)
        #expect(registry.finishCancellableTasks().work.count == 1)
        #expect(registry.finishOne(.key(key)) == .applied, "one late finish absorbed")
        work = nil
        #expect(registry.finishOne(.key(key)) == .stale, "its object died: not absorbed")
        #expect(registry.cancelledTasks.isEmpty)
    }

    /// A reset forgets the labels of the tasks it ends (the ended-labels list keeps the live
    /// tokens' for a late finish), so that resets never pile labels up.
    @Test func aResetKeepsNoLabelOfTheTasksItEnded() {
        var registry = TaskRegistry()
        let object = Object()
        registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: "upload", now: 0)
        let pinned = registry.pin(label: "download", now: 0)
        registry.finishEverything()
        #expect(registry.labels.openLabelCount == 0)
        #expect(registry.labels.endedLabel(of: .key(ObjectIdentifier(object))) == "upload")
        #expect(registry.labels.endedLabel(of: .pinned(pinned)) == "download")
    }

    @Test func deadEntryAtAReusedKeyIsReplacedNotMerged() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)  // any stable key stands for "this address"
        var dead: Object? = Object()
        registry.begin(key, object: dead, kind: .token, label: "old", now: 0)
        registry.begin(key, object: dead, kind: .token, label: "old", now: 0)
        dead = nil

        let newcomer = Object()
        registry.begin(key, object: newcomer, kind: .token, label: "new", now: 1)
        #expect(registry.activeTaskCount == 1)
        #expect(registry.count(for: key) == 1)
        var kept: [AnyObject] = []
        #expect(registry.records(keepingAlive: &kept).map(\.label) == ["new"])
        #expect(registry.sweptEntryCount == 1)
        _ = dead
    }

    /// A cancel remembers each cancelled object for its late finishes; the next cancel forgets
    /// every record whose object died since, not just the first.
    @Test func aCancelForgetsEveryRecordOfADeadObject() {
        var registry = TaskRegistry()
        var first: Work? = Work()
        var second: Work? = Work()
        let firstKey = ObjectIdentifier(first!)
        let secondKey = ObjectIdentifier(second!)
        registry.begin(firstKey, object: first, kind: .token, label: nil, now: 0)
        registry.begin(secondKey, object: second, kind: .token, label: nil, now: 0)
        #expect(registry.finishCancellableTasks().work.count == 2)
        #expect(registry.cancelledTasks.count == 2)
        first = nil
        second = nil
        _ = registry.finishCancellableTasks()
        #expect(registry.cancelledTasks.isEmpty)
    }

    /// A live object's record does not stop the forgetting: the next cancel forgets every dead
    /// object's record and keeps every live one's, whatever order the records come in (with ten
    /// of each, a loop that stopped at a live record would keep some dead ones almost surely).
    @Test func aCancelForgetsTheDeadRecordsAndKeepsTheLiveOnes() {
        var registry = TaskRegistry()
        let live = (0..<10).map { _ in Work() }
        var dead: [Work] = (0..<10).map { _ in Work() }
        for work in live + dead {
            registry.begin(ObjectIdentifier(work), object: work, kind: .token, label: nil, now: 0)
        }
        #expect(registry.finishCancellableTasks().work.count == 20)
        dead.removeAll()
        let next = registry.finishCancellableTasks()
        #expect(Set(registry.cancelledTasks.keys) == Set(live.map(ObjectIdentifier.init)))
        #expect(next.keptAlive.count == 10, "the live objects read, to release after the lock")
    }

    /// Work that stopped counting is held (weakly) for the next cancel. The held work whose
    /// object died is let go once the held work has doubled since it was last looked over (at
    /// least 16), not at every stop: a screen whose feeds come and go holds at most about twice
    /// its live feeds, and a stop costs O(1) amortized, not a pass over every feed held. The
    /// live work read is handed back, to release after the lock.
    @Test func heldWorkWhoseObjectDiedIsLetGoOnceTheHeldWorkHasDoubled() {
        var registry = TaskRegistry()
        var time = EventTime(preread: 0)
        var kept: [AnyObject] = []
        var works: [Work?] = []
        func stop(_ work: Work) {
            let key = ObjectIdentifier(work)
            registry.begin(key, object: work, kind: .group, label: nil, now: 0)
            #expect(registry.stopCounting(key, object: work, keepingAlive: &kept, time: &time) == .applied)
        }
        let live = Work()
        stop(live)
        for _ in 1..<16 {
            let work = Work()
            works.append(work)
            stop(work)
        }
        let next = (0..<2).map { _ in Work() }  // made first: not at a dead one's address
        works.removeAll()  // 15 of the 16 held die
        kept = []
        stop(next[0])
        #expect(registry.uncountedWork.count == 2, "16 held: looked over, the dead let go")
        #expect(kept.count == 1 && kept.first === live, "the live work read, to release after the lock")
        kept = []
        stop(next[1])
        #expect(registry.uncountedWork.count == 3)
        #expect(kept.isEmpty, "not looked over again before the held work doubles")
    }

    @Test func finishAtAReusedKeyEndsTheDeadTasksOnly() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)
        var dead: Object? = Object()
        registry.begin(key, object: dead, kind: .token, label: nil, now: 0)
        dead = nil
        #expect(registry.finishOne(.key(key)) == .tokenDead)
        #expect(registry.activeTaskCount == 0)
        #expect(registry.sweptEntryCount == 0)
        #expect(registry.finishOne(.key(key)) == .stale)
        _ = dead
    }

    @Test func sweepRemovesDeadEntriesAndKeepsLiveOnes() {
        var registry = TaskRegistry()
        let live = Object()
        var dead: [Object]? = (0..<5).map { _ in Object() }
        registry.begin(ObjectIdentifier(live), object: live, kind: .token, label: nil, now: 0)
        for object in dead! {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: "dead", now: 0)
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: "dead", now: 0)
        }
        registry.begin(ObjectIdentifier(Object.self), object: nil, kind: .group, label: "group", now: 0)
        registry.push(now: 0)
        #expect(registry.activeTaskCount == 13)
        dead = nil
        let result = registry.sweep(now: 10, staleThreshold: nil)
        #expect(result.keptAlive.count == 1)
        #expect(registry.activeTaskCount == 3)
        #expect(registry.sweptEntryCount == 1)
        #expect(registry.count(for: ObjectIdentifier(live)) == 1)
        #expect(registry.count(for: ObjectIdentifier(Object.self)) == 1)
        _ = dead
    }

    @Test func staleEntriesAreReportedOnce() {
        var registry = TaskRegistry()
        registry.begin(ObjectIdentifier(Object.self), object: nil, kind: .group, label: "group", now: 0)
        registry.push(now: 5)
        #expect(registry.sweep(now: 9, staleThreshold: 10).staleTasks.isEmpty)
        #expect(registry.sweep(now: 10, staleThreshold: 10).staleTasks.map(\.record.label) == ["group"])
        #expect(registry.sweep(now: 15, staleThreshold: 10).staleTasks.map(\.record.label) == [ActivityLabel.push])
        #expect(registry.sweep(now: 20, staleThreshold: 10).staleTasks.isEmpty)
    }

    @Test func aDeadTokenAtAGroupsAddressIsNotTheGroupsCount() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)
        var dead: Object? = Object()
        registry.begin(key, object: dead, kind: .token, label: nil, now: 0)
        dead = nil
        #expect(registry.groupCount(for: key) == 0)
        registry.begin(key, object: nil, kind: .group, label: "group", now: 1)
        #expect(registry.groupCount(for: key) == 1)
        #expect(registry.activeTaskCount == 1, "the dead token's task ended when the group began")
        _ = dead
    }

    @Test func countsNeverGoNegative() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)
        #expect(registry.finishOne(.key(key)) == .stale)
        #expect(registry.finishAll(key) == 0)
        let popped = registry.pop()
        #expect(!popped)
        #expect(registry.activeTaskCount == 0)
        registry.begin(key, object: nil, kind: .group, label: nil, now: 0)
        #expect(registry.finishOne(.key(key)) == .applied)
        #expect(registry.finishOne(.key(key)) == .stale)
        #expect(registry.activeTaskCount == 0)
    }

    @Test func removingFromTheMiddleKeepsEveryOtherEntryReachable() {
        var registry = TaskRegistry()
        let objects = (0..<100).map { _ in Object() }
        for (index, object) in objects.enumerated() {
            for _ in 0...index % 3 {
                registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
            }
        }
        for object in objects.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
            registry.finishAll(ObjectIdentifier(object))
        }
        for (index, object) in objects.enumerated() {
            #expect(registry.count(for: ObjectIdentifier(object)) == (index % 2 == 0 ? 0 : index % 3 + 1))
        }
        #expect(registry.entryCount == 50)
    }
    @Test func sweepPacksTheSlotsOnlyWhenMostAreFree() {
        var registry = TaskRegistry()
        var objects: [Object] = (0..<200).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        objects.removeLast(80)  // 80 of 200 die: fewer free slots than live entries
        _ = registry.sweep(now: 1, staleThreshold: nil)
        #expect(registry.entryCount == 120)
        #expect(registry.slots.count == 200, "freed slots wait for the next begins")
        objects.removeLast(100)  // most slots are free now
        _ = registry.sweep(now: 2, staleThreshold: nil)
        #expect(registry.entryCount == 20)
        #expect(registry.slots.count == 20, "packed, so that sweeps follow the live entries")
        for object in objects {
            #expect(registry.count(for: ObjectIdentifier(object)) == 1, "every live entry still found")
        }
        #expect(registry.finishOne(.key(ObjectIdentifier(objects[0]))) == .applied)
    }

    /// A registry whose `count` tokens each began one task and the last `dying` of them died,
    /// swept once; and the live tokens.
    private func sweptRegistry(of count: Int, dying: Int) -> (TaskRegistry, [Object]) {
        var registry = TaskRegistry()
        var objects: [Object] = (0..<count).map { _ in Object() }
        for object in objects {
            registry.begin(ObjectIdentifier(object), object: object, kind: .token, label: nil, now: 0)
        }
        objects.removeLast(dying)
        _ = registry.sweep(now: 1, staleThreshold: nil)
        return (registry, objects)
    }

    /// A registry whose `count` tokens each began one task and have all died, swept once.
    private func sweptRegistryOfDeadTokens(_ count: Int) -> TaskRegistry {
        sweptRegistry(of: count, dying: count).0
    }

    @Test func sweepLeavesAFewFreeSlotsUnpacked() {
        // Packing pays only when there is much to pack: up to 64 free slots wait for new begins.
        let registry = sweptRegistryOfDeadTokens(64)
        #expect(registry.entryCount == 0)
        #expect(registry.slots.count == 64, "64 free slots are not yet worth packing")
    }

    /// Up to 64 free slots wait for new begins even where they outnumber the live entries: 60
    /// free beside 40 live in a registry of 100 are not worth packing.
    @Test func sweepLeavesAFewFreeSlotsUnpackedBesideFewerLiveEntries() {
        let (registry, live) = sweptRegistry(of: 100, dying: 60)
        #expect(registry.entryCount == 40)
        #expect(registry.slots.count == 100, "60 free slots are not yet worth packing")
        withExtendedLifetime(live) {}
    }

    @Test func sweepPacksOnlyOnceFreeSlotsOutnumberLiveEntries() {
        var (registry, objects) = sweptRegistry(of: 200, dying: 100)
        #expect(registry.entryCount == 100)
        #expect(registry.slots.count == 200, "100 free slots beside 100 live entries stay")
        objects.removeLast()
        _ = registry.sweep(now: 2, staleThreshold: nil)
        #expect(registry.entryCount == 99)
        #expect(registry.slots.count == 99, "101 free slots outnumber 99 live entries: packed")
        #expect(objects.allSatisfy { registry.count(for: ObjectIdentifier($0)) == 1 })
    }

    /// A sweep that finds every entry dead packs the registry down to nothing (no live entry to
    /// keep the tail at), and the next begin starts again from the first slot.
    @Test func sweepOfOnlyDeadEntriesEmptiesTheRegistry() {
        var registry = sweptRegistryOfDeadTokens(100)
        #expect(registry.entryCount == 0)
        #expect(registry.slots.isEmpty, "100 free slots and no live entry: all cut")
        #expect(registry.firstFreeSlot == -1)
        let next = Object()
        registry.begin(ObjectIdentifier(next), object: next, kind: .token, label: nil, now: 2)
        #expect(registry.table.value(for: ObjectIdentifier(next)) == 0)
        #expect(registry.activeTaskCount == 1)
    }
}

@Suite("Identity table")
struct IdentityTableTests {
    @Test func agreesWithADictionaryUnderRandomOperations() {
        var generator = SeededGenerator(seed: 42)
        var table = IdentityTable()
        var reference: [ObjectIdentifier: Int32] = [:]
        // Keys spaced like object addresses (16-byte aligned), from a small range so that
        // probe runs collide, wrap around, and are shifted back by removals.
        let keys = (1...600).map { unsafeBitCast(UInt($0) << 4, to: ObjectIdentifier.self) }
        for step in 0..<50_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &generator)]
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                table.set(Int32(step), for: key)
                reference[key] = Int32(step)
            case 1:
                table.remove(key)
                reference[key] = nil
            default:
                #expect(table.value(for: key) == reference[key])
            }
            if step % 5_000 == 0 {
                #expect(table.count == reference.count)
                #expect(keys.allSatisfy { table.value(for: $0) == reference[$0] })
            }
        }
        table.removeAll()
        #expect(table.count == 0)
        #expect(keys.allSatisfy { table.value(for: $0) == nil })
    }

    /// The load limit: the table holds up to three quarters of its slots before it doubles
    /// (probing relies on the free quarter; memory on not doubling earlier). Only the rule is
    /// checked here: when the table applies it shows only in memory and speed.
    @Test func theKeyLimitIsThreeQuartersOfTheSlots() {
        #expect(IdentityTable.keyLimit(ofSlots: 16) == 12)
        #expect(IdentityTable.keyLimit(ofSlots: 32) == 24)
        #expect(IdentityTable.keyLimit(ofSlots: 1 << 20) == 3 << 18)
    }

    /// Growing keeps every key with its value.
    @Test func growingKeepsEveryKey() {
        var table = IdentityTable()
        let keys = (1...25).map { unsafeBitCast(UInt($0) << 4, to: ObjectIdentifier.self) }
        for (index, key) in keys.enumerated() { table.set(Int32(index), for: key) }
        #expect(keys.indices.allSatisfy { table.value(for: keys[$0]) == Int32($0) })
    }
}
