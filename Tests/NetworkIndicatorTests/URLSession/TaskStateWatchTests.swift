import Foundation
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the key-value observation of a task's `state` (Apple platforms) does at each report,
/// decided here on Linux: when a task counts, ends, and when its observation is let go.
@Suite("A tracked task's state reports")
struct TaskStateWatchTests {
    private typealias Actions = TaskStateWatch.Actions
    /// Spelled out, not `Actions()`, so that the defaults themselves are checked.
    private static let nothing = Actions(finish: false, stopObserving: false)

    private func answers(_ states: [URLSessionTask.State]) -> [Actions] {
        var watch = TaskStateWatch()
        return states.map { watch.stateChanged(to: $0) }
    }

    @Test func trackedTaskEndsAndStopsObservingAtCompletion() {
        #expect(
            answers([.suspended, .running, .canceling, .completed])
                == [Self.nothing, Self.nothing, Self.nothing, Actions(finish: true, stopObserving: true)]
        )
    }

    @Test func trackedTaskAlreadyCompletedStopsAtTheFirstReport() {
        var watch = TaskStateWatch()
        #expect(!watch.hasStopped)
        #expect(watch.stateChanged(to: .completed) == Actions(finish: true, stopObserving: true))
        #expect(watch.hasStopped)
    }

    @Test func reportsAfterCompletionAskForNothing() {
        #expect(
            answers([.running, .completed, .running, .suspended, .completed])
                == [Self.nothing, Actions(finish: true, stopObserving: true), Self.nothing, Self.nothing, Self.nothing]
        )
    }
}
