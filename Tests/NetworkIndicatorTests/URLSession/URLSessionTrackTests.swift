import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// `track(_:)` against the loopback server, with the sweep an hour away: only the completion
    /// watch (key-value observation on Apple platforms, the poll on Linux) can end the tasks. Off the
    /// main actor, so that waiting for a load does not wait for other suites' main-actor work.
    @Suite("Tracked URLSession tasks")
    struct URLSessionTrackTests {
        private static let hour: TimeInterval = 3600

        private func makeManager() -> (NetworkIndicatorManager, ManualNetworkIndicatorScheduler) {
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = Self.hour
            manager.settings.completionDelay = 0  // no hide timer: the polls are the only timed work
            return (manager, scheduler)
        }

        /// A manager, and a load of `server` tracked by it and waited for until the task has
        /// completed (no poll has run yet, so the task is still counted). The caller keeps the task
        /// alive until it is done with it.
        private func completedTrackedLoad(
            of server: LocalHTTPServer
        ) async -> (NetworkIndicatorManager, ManualNetworkIndicatorScheduler, URLSession, URLSessionDataTask) {
            let (manager, scheduler) = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: server.url("/a"))
            manager.track(task)
            task.resume()
            await eventually { task.state == .completed }
            return (manager, scheduler, session, task)
        }

        /// Advances the manual clock by one poll interval on the main actor.
        private func poll(_ scheduler: ManualNetworkIndicatorScheduler) async {
            await MainActor.run { scheduler.advance(by: URLSessionTaskPoller.interval) }
        }

        @Test func completedTaskEndsAtTheNextPollWithTheSweepAnHourAway() async throws {
            let server = try LocalHTTPServer()
            let (manager, scheduler) = makeManager()
            let session = URLSession(configuration: .ephemeral)
            server.holdResponses()  // in flight until the polls below have looked at it
            let task = session.dataTask(with: server.url("/a"))
            manager.track(task)
            task.resume()
            await poll(scheduler)
            await poll(scheduler)
            #expect(manager.activeTaskCount == 1, "still loading: polls leave it open")
            server.releaseResponses()
            await eventually { task.state == .completed }
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func cancelledTaskEndsAtTheNextPoll() async throws {
            let server = try LocalHTTPServer()
            let (manager, scheduler) = makeManager()
            let session = URLSession(configuration: .ephemeral)
            server.holdResponses()
            defer { server.releaseResponses() }
            let task = session.dataTask(with: server.url("/held"))
            manager.track(task)
            task.resume()
            task.cancel()
            await eventually { task.state == .completed }
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0)
            session.invalidateAndCancel()
        }

        @Test func failedTaskEndsAtTheNextPoll() async throws {
            let refusingPort = try LocalHTTPServer().port  // released at once: nothing listens there
            let (manager, scheduler) = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let failed = LockedState(false)
            let task = session.dataTask(with: URL(string: "http://127.0.0.1:\(refusingPort)/")!) { _, _, error in
                failed.withLock { $0 = error != nil }
            }
            manager.track(task)
            task.resume()
            await eventually { task.state == .completed }
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0)
            await eventually { failed.withLock { $0 } }
            session.finishTasksAndInvalidate()
        }

        @Test func pollingStopsWhenNoTrackedTaskRemains() async throws {
            let server = try LocalHTTPServer()
            let (manager, scheduler, session, task) = await completedTrackedLoad(of: server)
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0)
            let executed = scheduler.executedWorkCount
            await MainActor.run { scheduler.advance(by: 60) }
            #expect(scheduler.executedWorkCount == executed, "no poll ran after the last task ended")
            #expect(scheduler.pendingWorkCount == 0, "neither a poll nor a sweep is left waiting")
            session.finishTasksAndInvalidate()
            withExtendedLifetime(task) {}
        }

        /// A poll left over from an earlier watch of the manager's address (its timer already
        /// firing when a new watch replaced it) ends nothing: the current watch's completed task is
        /// left to the current watch's own poll. The poll (Linux) only: with key-value observing the
        /// task ends as it completes.
        @Test(.enabled(if: !hasKeyValueObserving))
        func aPollOfAReplacedWatchEndsNothing() async throws {
            let server = try LocalHTTPServer()
            let (manager, scheduler, session, task) = await completedTrackedLoad(of: server)
            await MainActor.run { URLSessionTaskPoller.poll(ObjectIdentifier(manager), id: .max) }
            #expect(manager.activeTaskCount == 1, "the stale poll ended the current watch's task")
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0, "the watch's own poll ends it")
            session.finishTasksAndInvalidate()
            withExtendedLifetime(task) {}
        }

        @Test func trackingIsPolledOnlyWhileATaskIsTracked() async throws {
            let (manager, scheduler) = makeManager()
            let session = URLSession(configuration: .ephemeral)
            #expect(scheduler.scheduledTimerCount == 0)
            for round in 1...2 {
                // The second round shows that the watch ended with its timer: a new one starts.
                let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
                manager.track(task)
                await MainActor.run { scheduler.runPendingWork() }  // the hops; no timer is due yet
                #expect(isPollDue(scheduler) == !hasKeyValueObserving, "round \(round)")
                task.cancel()
                await eventually { task.state == .completed }
                await poll(scheduler)
                #expect(manager.activeTaskCount == 0)
                #expect(scheduler.pendingWorkCount == 0, "round \(round): no poll (nor sweep) is left")
            }
            session.invalidateAndCancel()
        }

        /// Whether a timer is due one poll interval from now: nothing but the poll keeps so short an
        /// interval (the sweep is an hour away, and no one listens for progress).
        private func isPollDue(_ scheduler: ManualNetworkIndicatorScheduler) -> Bool {
            scheduler.nextDeadline == scheduler.now + URLSessionTaskPoller.interval
        }

        @Test func tasksTrackedTwiceEndTogether() async throws {
            let server = try LocalHTTPServer()
            let (manager, scheduler) = makeManager()
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: server.url("/a"))
            manager.track(task)
            manager.track(task)
            #expect(manager.activeTaskCount == 2)
            task.resume()
            await eventually { task.state == .completed }
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func taskTrackedInAChildEndsInItsParentToo() async throws {
            let server = try LocalHTTPServer()
            let (parent, scheduler) = makeManager()
            let child = NetworkIndicatorManager(parent: parent, label: "screen")
            child.settings.completionCheckInterval = Self.hour
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: server.url("/child"))
            child.track(task)
            task.resume()
            #expect(parent.activeTaskCount == 1)
            await eventually { task.state == .completed }
            await poll(scheduler)
            #expect(child.activeTaskCount == 0)
            #expect(parent.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }

        @Test func releasedManagerStopsItsPoll() async throws {
            let scheduler = ManualNetworkIndicatorScheduler()
            var manager: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: scheduler)
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: URL(string: "http://127.0.0.1:9/")!)
            manager?.track(task)
            manager = nil
            await poll(scheduler)  // finds the manager gone and stops
            let executed = scheduler.executedWorkCount
            await MainActor.run { scheduler.advance(by: 60) }
            #expect(scheduler.executedWorkCount == executed, "no poll ran for a manager that is gone")
            session.invalidateAndCancel()
            withExtendedLifetime(task) {}
        }

        /// The tasks a released manager tracked are let go with it: nothing keeps a watch for a
        /// manager that is gone.
        @Test func releasedManagerLetsGoOfItsTrackedTasks() async throws {
            weak var watched: URLSessionDataTask?
            do {
                let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
                let task = URLSessionDataTask()  // of no session: nothing else holds it
                watched = task
                manager.track(task)
            }
            #expect(watched == nil)
        }
    }
}
