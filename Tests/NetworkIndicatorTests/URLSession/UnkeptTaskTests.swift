import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The README's samples as written: the caller makes a task, tracks it, resumes it and keeps
    /// nothing. URLSession lets a task go once it has completed, so whatever ends the task must hold
    /// it until then; with the sweep an hour away, nothing else could end it in time.
    @Suite("URLSession tasks that nobody keeps")
    struct UnkeptTaskTests {
        private static let hour: TimeInterval = 3600

        /// A manager on the real main queue, sweeping once an hour.
        private func makeManager() -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager()
            manager.settings.completionCheckInterval = Self.hour
            return manager
        }

        @Test func trackedTaskThatNobodyKeepsEndsAfterItCompletes() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let handled = LockedState(false)
            startTrackedLoad(of: server.url("/delay/20"), on: session, in: manager) { handled.withLock { $0 = true } }
            #expect(manager.activeTaskCount == 1)
            await eventually { handled.withLock { $0 } }
            await eventually { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        @Test func trackedTaskThatIsNeverResumedEndsWhenItsSessionIsCancelled() async throws {
            let manager = makeManager()
            let session = URLSession(configuration: .ephemeral)
            manager.track(session.dataTask(with: URL(string: "http://127.0.0.1:9/")!))
            #expect(manager.activeTaskCount == 1)
            session.invalidateAndCancel()
            await eventually { manager.activeTaskCount == 0 }
        }

        /// The poll (Linux) holds its tasks: a task that nothing else holds, uncompleted, can never
        /// complete, so it ends and is let go. (With key-value observation the task is not held: it
        /// dies at once and ends at the sweep.)
        @Test(.enabled(if: !hasKeyValueObserving))
        func taskOnlyTheManagerHoldsEndsAndIsReleased() async {
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = Self.hour
            let task = trackedTaskOfNoSession(in: manager)
            #expect(task.object != nil, "held until a poll has seen it")
            await MainActor.run { scheduler.advance(by: URLSessionTaskPoller.interval) }
            #expect(manager.activeTaskCount == 0)
            #expect(task.object == nil, "let go once it ended")
            let executed = scheduler.executedWorkCount
            await MainActor.run { scheduler.advance(by: 60) }
            #expect(scheduler.executedWorkCount <= executed + 1, "no poll is left (one hop may be)")
        }

        @Test(.enabled(if: !hasKeyValueObserving))
        func tasksThatEndAtOnePollAreAllReleasedByIt() async {
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = Self.hour
            let first = trackedTaskOfNoSession(in: manager)
            let second = trackedTaskOfNoSession(in: manager)
            await MainActor.run { scheduler.advance(by: URLSessionTaskPoller.interval) }
            #expect(manager.activeTaskCount == 0)
            #expect(first.object == nil && second.object == nil, "both let go by the poll that ended them")
        }

        @Test(.enabled(if: !hasKeyValueObserving))
        func tasksHeldForAManagerAreReleasedWithIt() {
            var manager: NetworkIndicatorManager? = NetworkIndicatorManager(
                scheduler: ManualNetworkIndicatorScheduler()
            )
            let task = trackedTaskOfNoSession(in: manager!)
            #expect(task.object != nil)
            manager = nil  // no poll ever ran
            #expect(task.object == nil, "the watch went with its manager")
        }

        /// A task made by no session, tracked in `manager`, of which the caller keeps only a weak
        /// reference.
        private func trackedTaskOfNoSession(in manager: NetworkIndicatorManager) -> WeakReference<URLSessionTask> {
            let task = URLSessionDataTask()
            manager.track(task)
            return WeakReference(task)
        }
    }
}

/// Starts a load of `url` tracked in `manager`, as the README's sample does, and keeps nothing:
/// `handled` runs from the task's completion handler.
private func startTrackedLoad(
    of url: URL,
    on session: URLSession,
    in manager: NetworkIndicatorManager,
    handled: @escaping @Sendable () -> Void
) {
    let task = session.dataTask(with: url) { _, _, _ in handled() }
    manager.track(task)
    task.resume()
}
