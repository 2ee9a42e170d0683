import Foundation
import Testing

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

    /// Waits (with ``eventually(timeout:sourceLocation:isolation:_:)``) until `condition` holds
    /// for the values collected, or `timeout` seconds have passed, which records an issue at
    /// `sourceLocation`; returns the values either way.
    @discardableResult
    func wait(
        timeout: TimeInterval = 60,
        sourceLocation: SourceLocation = #_sourceLocation,
        until condition: @Sendable ([Bool]) -> Bool
    ) async -> [Bool] {
        await eventually(timeout: timeout, sourceLocation: sourceLocation) { condition(values) }
        return values
    }
}
