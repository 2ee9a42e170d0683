import Foundation
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// `track(_:)` on the real main queue, with the sweep an hour away and the caller keeping
    /// nothing (as the README's sample): the lag from a load's completion handler to the manager's
    /// count dropping. A generous bound, not a timing assertion: a task whose completion went
    /// unseen would stay counted for an hour, and the watch gives up well before that.
    @Suite("Tracked URLSession tasks on the real main queue")
    struct URLSessionTrackLagTests {
        /// How long one load's end is watched for before the load counts as never ended: a
        /// hundredth of the sweep interval, and more than a slow sanitizer run needs (the slowest
        /// of 50 loads under the thread sanitizer on a loaded machine was once measured at 7 s).
        private static let giveUp: TimeInterval = 36

        @Test func trackedLoadsThatNobodyKeepsEndWithinMomentsOfTheirCompletion() async throws {
            let server = try LocalHTTPServer()
            let manager = NetworkIndicatorManager()
            manager.completionCheckInterval = 3600
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
                // Printed for the record (CHANGELOG and the DocC article quote a run of it).
                print(
                    "track(_:) lag over \(lags.count) loads: median \(Int(lags[lags.count / 2] * 1000)) ms,"
                        + " max \(Int(slowest * 1000)) ms"
                )
            }
            session.finishTasksAndInvalidate()
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

        private func startLoad(
            _ url: URL,
            session: URLSession,
            manager: NetworkIndicatorManager,
            completed: @escaping @Sendable () -> Void
        ) {
            let task = session.dataTask(with: url) { _, _, _ in completed() }
            manager.track(task)
            task.resume()
        }
    }
}
