@testable import NetworkIndicator

extension TaskRegistry {
    /// The number of open tasks of `key`, of any kind.
    func count(for key: ObjectIdentifier) -> Int {
        table.value(for: key).map { slots[Int($0)].count } ?? 0
    }
}

extension IndicatorTree {
    /// ``apply(_:in:time:keepingAlive:)`` for an event that loads no object to keep alive.
    @discardableResult
    mutating func apply(_ event: TaskEvent, in id: NodeID, time: inout EventTime) -> (TaskEvent.Outcome, Bool) {
        var keptAlive: [AnyObject]?
        return apply(event, in: id, time: &time, keepingAlive: &keptAlive)
    }

    /// ``resetSubtree(of:time:keepingAlive:)``, the objects read released at once.
    mutating func resetSubtree(of id: NodeID, time: inout EventTime) -> Bool {
        var keptAlive: [AnyObject] = []
        return resetSubtree(of: id, time: &time, keepingAlive: &keptAlive)
    }
}

/// The registry's calls that end tasks, at time 0: for the tests that read no task event's time.
extension TaskRegistry {
    private static var zero: EventTime { EventTime(preread: 0) }

    mutating func finishOne(_ reference: TaskReference) -> TaskEvent.Outcome {
        var time = Self.zero
        return finishOne(reference, time: &time)
    }

    mutating func release(_ pinned: PinnedSlot) {
        var time = Self.zero
        release(pinned, time: &time)
    }

    mutating func pop() -> Bool {
        var time = Self.zero
        return pop(time: &time)
    }

    mutating func finishEverything() {
        var time = Self.zero
        var keptAlive: [AnyObject] = []
        finishEverything(time: &time, keepingAlive: &keptAlive)
    }

    @discardableResult
    mutating func finishAll(_ key: ObjectIdentifier) -> Int {
        var time = Self.zero
        return finishAll(key, time: &time)
    }

    mutating func finishCancellableTasks() -> Cancellation {
        var time = Self.zero
        return finishCancellableTasks(time: &time)
    }
}

extension IndicatorTree {
    /// The node `id` names; it must be in the tree.
    subscript(id: NodeID) -> Node {
        precondition(contains(id))
        return node(at: Int(id.index))
    }
}

extension ProgressRollUp {
    /// How many tasks with progress the batch still lists (running, or ended and not yet
    /// seen to be).
    var partCount: Int { driver.withTree { $0.progressParts(of: driver.node).count } }
}
