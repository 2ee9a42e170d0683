import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Collects diagnostics from any thread.
final class DiagnosticsRecorder: Sendable {
    private let storage = LockedState<[NetworkIndicatorDiagnostic]>([])

    var all: [NetworkIndicatorDiagnostic] { storage.withLock { $0 } }
    var kinds: [NetworkIndicatorDiagnostic.Kind] { all.map(\.kind) }

    var handler: NetworkIndicatorDiagnosticsHandler {
        { [storage] diagnostic in storage.withLock { $0.append(diagnostic) } }
    }
}

/// A manager on a manual scheduler with a recording output attached, delays zeroed unless
/// asked for, and everything settled.
@MainActor
final class Harness {
    let scheduler = ManualNetworkIndicatorScheduler()
    let diagnostics = DiagnosticsRecorder()
    let output: RecordingNetworkIndicatorOutput
    let manager: NetworkIndicatorManager

    init(
        startDelay: TimeInterval = 0,
        completionDelay: TimeInterval = 0,
        completionCheckInterval: TimeInterval = 1,
        receivesCounts: Bool = false
    ) {
        manager = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: diagnostics.handler)
        output = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: receivesCounts)
        manager.settings.startDelay = startDelay
        manager.settings.completionDelay = completionDelay
        manager.settings.completionCheckInterval = completionCheckInterval
        manager.addOutput(output)
        settle()
    }

    /// Runs the pending main-queue hops without moving the clock.
    func settle() {
        scheduler.runPendingWork()
    }

    func advance(by seconds: TimeInterval) {
        scheduler.advance(by: seconds)
    }

    var visibilityChanges: [Bool] { output.visibilityChanges }

    /// The main-queue hops that ten pushes, each settled, ask for (the count moves away from
    /// zero only: an output or observation that wants counts needs a hop for each).
    func hopsForTenCountChanges() -> Int {
        let before = scheduler.enqueuedWorkCount
        for _ in 0..<10 {
            manager.pushNetworkActivity()
            settle()
        }
        return scheduler.enqueuedWorkCount - before
    }
}

/// An object to use as a token.
final class Token: Sendable {}

/// A token whose completion a test controls.
final class CompletableToken: NetworkActivityCompletionReporting, Sendable {
    private let finished = LockedState(false)
    var isNetworkActivityFinished: Bool { finished.withLock { $0 } }
    func finish() { finished.withLock { $0 = true } }
}

/// Runs `body`, failing the test if it has not finished after `seconds`.
func withDeadline<T: Sendable>(
    _ seconds: TimeInterval,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            Issue.record("timed out after \(seconds) s", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        return value
    }
}

/// The first `count` values of `stream`.
func firstValues<S: AsyncSequence & Sendable>(_ count: Int, of stream: S) async throws -> [S.Element]
where S.Element: Sendable {
    var values: [S.Element] = []
    for try await value in stream {
        values.append(value)
        if values.count == count { break }
    }
    return values
}

/// Allocates tokens (kept in `keep`) until one lands at `identity`'s freed address; `nil` if
/// malloc handed that block to another thread (tests run in parallel). Address reuse is also
/// covered deterministically, without malloc, by `TaskRegistryTests`.
func tokenReusingAddress(of identity: ObjectIdentifier, keeping keep: inout [Token]) -> Token? {
    for _ in 0..<20_000 {
        let candidate = Token()
        if ObjectIdentifier(candidate) == identity { return candidate }
        keep.append(candidate)
    }
    return nil
}

/// Records that a test could not provoke address reuse, as an intermittent known issue.
func noteNoAddressReuse() {
    withKnownIssue("malloc did not hand the freed block back to this thread", isIntermittent: true) {
        Issue.record("no address reuse")
    }
}

/// Whether Foundation has key-value observing (Apple platforms): `track(_:)` then observes a
/// task's state instead of polling it.
let hasKeyValueObserving: Bool = {
    #if canImport(ObjectiveC)
    true
    #else
    false
    #endif
}()
