/// How many of a scope's tasks are pull-to-refreshes, for the scope's overlay, which does not
/// draw a second spinner for them (the system's refresh control shows one already).
///
/// `networkActivityRefreshable` counts each refresh here, for as long as it also counts in the
/// scope's manager; an overlay of the scope listens. Main actor only.
@MainActor
final class NetworkActivityRefreshes {
    /// The refreshes running now.
    private(set) var count = 0
    private var listeners: [UInt64: @MainActor (Int) -> Void] = [:]
    private var nextID: UInt64 = 0

    nonisolated init() {}

    /// A refresh started.
    func begin() {
        count += 1
        tell()
    }

    /// A refresh ended. An end without a begin does nothing.
    func end() {
        guard count > 0 else { return }
        count -= 1
        tell()
    }

    /// Calls `listener` with each new count until ``removeListener(_:)``; returns its ID.
    func addListener(_ listener: @escaping @MainActor (Int) -> Void) -> UInt64 {
        defer { nextID += 1 }
        listeners[nextID] = listener
        return nextID
    }

    func removeListener(_ id: UInt64) {
        listeners[id] = nil
    }

    private func tell() {
        for listener in listeners.values { listener(count) }
    }
}
