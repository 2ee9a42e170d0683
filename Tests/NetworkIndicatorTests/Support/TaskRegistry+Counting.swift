@testable import NetworkIndicator

extension TaskRegistry {
    /// The number of open tasks of `key`, of any kind.
    func count(for key: ObjectIdentifier) -> Int {
        table.value(for: key).map { slots[Int($0)].count } ?? 0
    }
}
