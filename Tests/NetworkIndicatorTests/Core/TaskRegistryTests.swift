import Testing

@testable import NetworkIndicator

/// The registry as a plain value: identity, counts and address reuse without malloc's help.
@Suite("Task registry")
struct TaskRegistryTests {
    private final class Object {}

    @Test func deadEntryAtAReusedKeyIsReplacedNotMerged() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)  // any stable key stands for "this address"
        var dead: Object? = Object()
        registry.begin(key, object: dead, kind: .token, label: .text("old"), now: 0)
        registry.begin(key, object: dead, kind: .token, label: .text("old"), now: 0)
        dead = nil

        let newcomer = Object()
        registry.begin(key, object: newcomer, kind: .token, label: .text("new"), now: 1)
        #expect(registry.activeTaskCount == 1)
        #expect(registry.count(for: key) == 1)
        #expect(registry.entries[key]?.label.text == "new")
        #expect(registry.sweptEntryCount == 1)
        _ = dead
    }

    @Test func finishAtAReusedKeyEndsTheDeadTasksOnly() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)
        var dead: Object? = Object()
        registry.begin(key, object: dead, kind: .token, label: .text("old"), now: 0)
        dead = nil
        #expect(registry.finishOne(key) == .tokenDead)
        #expect(registry.activeTaskCount == 0)
        #expect(registry.sweptEntryCount == 0)
        #expect(registry.finishOne(key) == .unknown)
        _ = dead
    }

    @Test func sweepRemovesDeadEntriesAndKeepsLiveOnes() {
        var registry = TaskRegistry()
        let live = Object()
        var dead: Object? = Object()
        registry.begin(ObjectIdentifier(live), object: live, kind: .token, label: .text("live"), now: 0)
        registry.begin(ObjectIdentifier(dead!), object: dead, kind: .token, label: .text("dead"), now: 0)
        registry.begin(ObjectIdentifier(dead!), object: dead, kind: .token, label: .text("dead"), now: 0)
        registry.begin(ObjectIdentifier(Object.self), object: nil, kind: .counter, label: .text("push"), now: 0)
        dead = nil
        let result = registry.sweep(now: 10, staleThreshold: nil)
        #expect(result.endedTaskCount == 2)
        #expect(result.keptAlive.count == 1)
        #expect(registry.activeTaskCount == 2)
        #expect(registry.sweptEntryCount == 1)
    }

    @Test func staleEntriesAreReportedOnce() {
        var registry = TaskRegistry()
        registry.begin(ObjectIdentifier(Object.self), object: nil, kind: .counter, label: .text("push"), now: 0)
        #expect(registry.sweep(now: 9, staleThreshold: 10).staleTasks.isEmpty)
        #expect(registry.sweep(now: 10, staleThreshold: 10).staleTasks.map(\.label) == ["push"])
        #expect(registry.sweep(now: 20, staleThreshold: 10).staleTasks.isEmpty)
    }

    @Test func countsNeverGoNegative() {
        var registry = TaskRegistry()
        let key = ObjectIdentifier(Object.self)
        #expect(registry.finishOne(key) == .unknown)
        #expect(registry.finishAll(key) == 0)
        #expect(registry.activeTaskCount == 0)
        registry.begin(key, object: nil, kind: .counter, label: .text("push"), now: 0)
        #expect(registry.finishOne(key) == .finished)
        #expect(registry.finishOne(key) == .unknown)
        #expect(registry.activeTaskCount == 0)
    }
}
