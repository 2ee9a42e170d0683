import Foundation

@testable import NetworkIndicator

/// Collects a manager's visibility updates in the background, for tests on the real main queue.
final class VisibilityCollector: Sendable {
    private let storage = LockedState<[Bool]>([])
    private let task: Task<Void, Never>

    init(_ manager: NetworkIndicatorManager) {
        let stream = manager.visibilityUpdates()
        let storage = storage
        task = Task {
            for await value in stream {
                storage.withLock { $0.append(value) }
            }
        }
    }

    deinit { task.cancel() }

    var values: [Bool] { storage.withLock { $0 } }

    /// Waits (polling every few milliseconds) until `condition` holds for the values collected,
    /// or `timeout` seconds have passed; returns the values either way.
    @discardableResult
    func wait(timeout: TimeInterval = 20, until condition: @Sendable ([Bool]) -> Bool) async -> [Bool] {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition(values), Date() < deadline {
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return values
    }
}
