import Foundation
import NetworkIndicator
import Testing

/// Runs `load` with `server`'s responses held until `manager` has been seen counting the load,
/// under `label` and nothing else; returns what `load` returned, once it has.
func whileHeld<T: Sendable>(
    _ server: LocalHTTPServer,
    _ manager: NetworkIndicatorManager,
    label: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ load: @escaping @Sendable () async throws -> T
) async throws -> T {
    server.holdResponses()
    let running = Task.detached { try await load() }
    await eventually(sourceLocation: sourceLocation) { manager.activeTaskCount != 0 }
    #expect(manager.activitySnapshot().activities.map(\.label) == [label], sourceLocation: sourceLocation)
    server.releaseResponses()
    return try await running.value
}
