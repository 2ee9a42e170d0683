import Foundation
import Testing

/// Waits until `condition` holds, checking it at once and then every 5 ms, for at most `timeout`.
///
/// The default timeout is a minute: only a failing test waits that long, and a CI run under the
/// thread sanitizer on a loaded two-core schedule was measured running a main-queue timer more
/// than ten seconds late.
///
/// Use it wherever a test would otherwise sleep for a fixed time and then assert: wait for the
/// condition itself, with a generous timeout, then assert. (A sleep that only spaces events, such
/// as keeping a task open for a while before finishing it, needs no helper.)
///
/// `condition` runs on the caller's actor (`isolation`, `#isolation` by default), so a
/// `@MainActor` test may read main-actor state such as `isIndicatorVisible`, and a nonisolated
/// test may read thread-safe state from whichever thread it runs on. Between checks the caller
/// suspends in `Task.sleep` instead of blocking, which leaves the main actor, and the main
/// dispatch queue that runs it, free: main-queue hops and timers keep running while it waits.
///
/// The timeout is in seconds (`TimeInterval`), not a `Duration`, so that the tests still build
/// for the package's oldest platforms (macOS 10.15, iOS 13), where `Duration` is unavailable.
///
/// - Parameters:
///   - timeout: How long to wait, in seconds, before giving up.
///   - sourceLocation: Where to record the issue if the condition never holds.
///   - isolation: The actor `condition` runs on: the caller's.
///   - condition: What to wait for; called repeatedly.
/// - Returns: `true` as soon as `condition` holds; `false` after recording an issue at
///   `sourceLocation` if `timeout` passed (or the waiting task was cancelled) first.
@discardableResult
func eventually(
    timeout: TimeInterval = 60,
    sourceLocation: SourceLocation = #_sourceLocation,
    isolation: isolated (any Actor)? = #isolation,
    _ condition: () -> Bool
) async -> Bool {
    let deadline = DispatchTime.now() + timeout
    while !condition() {
        guard DispatchTime.now() < deadline else {
            Issue.record("condition still false after \(timeout) s", sourceLocation: sourceLocation)
            return false
        }
        do {
            try await Task.sleep(nanoseconds: 5_000_000)
        } catch {
            Issue.record("cancelled while waiting for a condition", sourceLocation: sourceLocation)
            return false
        }
    }
    return true
}
