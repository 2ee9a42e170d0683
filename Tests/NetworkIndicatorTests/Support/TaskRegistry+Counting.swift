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
}
