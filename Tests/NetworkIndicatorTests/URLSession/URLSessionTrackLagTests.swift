import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// How soon `track(_:)` ends a task that completes while the caller keeps nothing (as the
    /// README's sample), with the sweep an hour away: its documented bound is one poll on Linux
    /// ("within 50 ms of its completion, plus the main queue's latency").
    @Suite("Tracked URLSession tasks: how soon they end")
    struct URLSessionTrackLagTests {
        private static let hour: TimeInterval = 3600

        /// The bound, as logic on the manual clock: a load that nobody keeps, seen running by
        /// `pollsWhileLoading` polls, is still counted once it has completed, until the next poll,
        /// one ``URLSessionTaskPoller/interval`` later, which ends it. The poll (Linux) only: with
        /// key-value observing the task ends as it completes.
        @Test(.enabled(if: !hasKeyValueObserving), arguments: [0, 1, 2])
        func anUnkeptTaskEndsAtThePollAfterItsCompletion(pollsWhileLoading: Int) async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = Self.hour
            let session = URLSession(configuration: .ephemeral)
            server.holdResponses()  // in flight until the polls below have looked at it
            let task = startLoad(server.url("/a"), session: session, manager: manager) {}
            for _ in 0..<pollsWhileLoading { await poll(scheduler) }
            #expect(manager.activeTaskCount == 1, "still loading: polls leave it open")
            server.releaseResponses()
            // Read through a weak reference: the manager's hold is the only one it needs.
            await eventually { task.object?.state == .completed }
            #expect(manager.activeTaskCount == 1, "completed, but no poll has run since")
            await poll(scheduler)
            #expect(manager.activeTaskCount == 0, "the first poll after its completion ends it")
            session.finishTasksAndInvalidate()
        }

        /// How long one load's end is watched for on the real main queue before the load counts
        /// as never ended: a hundredth of the sweep interval, and more than a slow sanitizer run
        /// needs (the slowest of 50 loads under the thread sanitizer on a loaded schedule was once
        /// measured at 7 s).
        private static let giveUp: TimeInterval = 36

        /// On the real main queue, loads of random length that nobody keeps end, each long before
        /// the sweep could end it: the bound proves that their ends are seen at all, not how soon
        /// (the manual-clock test above checks that). The lag from each completion handler to the
        /// count's drop is printed for the record: the DocC article "Generated clients and
        /// URLSession" quotes a run of it.
        @Test func trackedLoadsThatNobodyKeepsEndOnTheRealMainQueue() async throws {
            let server = try LocalHTTPServer()
            let manager = NetworkIndicatorManager()
            manager.settings.completionCheckInterval = Self.hour
            let session = URLSession(configuration: .ephemeral)
            var lags: [TimeInterval] = []
            // Loads of random length, so that completions fall anywhere between two polls.
            for _ in 0..<20 {
                let url = server.url("/delay/\(Int.random(in: 0..<100))")
                let lag = await lagOfOneLoad(url, session: session, manager: manager)
                #expect(lag != nil, "a load was still counted \(Int(Self.giveUp)) s after its completion")
                guard let lag else { break }
                lags.append(lag)
            }
            lags.sort()
            if let slowest = lags.last {
                print(
                    "track(_:) lag over \(lags.count) loads: median \(Int(lags[lags.count / 2] * 1000)) ms,"
                        + " max \(Int(slowest * 1000)) ms"
                )
            }
            session.finishTasksAndInvalidate()
        }

        /// Advances the manual clock by one poll interval on the main actor.
        private func poll(_ scheduler: ManualNetworkIndicatorScheduler) async {
            await MainActor.run { scheduler.advance(by: URLSessionTaskPoller.interval) }
        }

        /// Seconds from the completion handler's call to the count's drop, watched from a thread
        /// of its own so that neither the main queue nor the cooperative pool delays the reading;
        /// `nil` if the count had not dropped ``giveUp`` seconds after the load began. The task is
        /// made, tracked and resumed in a function that keeps nothing.
        private func lagOfOneLoad(
            _ url: URL,
            session: URLSession,
            manager: NetworkIndicatorManager
        ) async -> TimeInterval? {
            let completedAt = LockedState<DispatchTime?>(nil)
            startLoad(url, session: session, manager: manager) {
                completedAt.withLock { $0 = DispatchTime.now() }
            }
            let endedAt: DispatchTime? = await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let deadline = DispatchTime.now() + Self.giveUp
                    while manager.activeTaskCount != 0 && DispatchTime.now() < deadline { usleep(1_000) }
                    continuation.resume(returning: manager.activeTaskCount == 0 ? DispatchTime.now() : nil)
                }
            }
            guard let endedAt else { return nil }
            await eventually { completedAt.withLock { $0 != nil } }
            let completed = completedAt.withLock { $0 } ?? endedAt
            return (Double(endedAt.uptimeNanoseconds) - Double(completed.uptimeNanoseconds)) / 1e9
        }

        /// Makes, tracks and resumes a load of `url` whose handler calls `completed`, and keeps
        /// only a weak reference to its task.
        @discardableResult
        private func startLoad(
            _ url: URL,
            session: URLSession,
            manager: NetworkIndicatorManager,
            completed: @escaping @Sendable () -> Void
        ) -> WeakReference<URLSessionTask> {
            let task = session.dataTask(with: url) { _, _, _ in completed() }
            manager.track(task)
            task.resume()
            return WeakReference(task)
        }
    }
}
