import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

#if !canImport(ObjectiveC)
extension RealLoadSuites {
    /// The completion poll's races, forced in one order by a scheduler that runs code inside
    /// `schedule`: between the moment a watch makes its timer and the moment it stores it.
    @Suite("Completion poll interleavings")
    struct PollerInterleavingTests {
        /// A task's watch ends (its task completed and the poll ran) before its timer is stored,
        /// and a new watch of the same manager begins in between: the first timer is cancelled
        /// as an orphan, and the new watch keeps its own, so that no poll outlives its watch.
        @MainActor
        @Test func aWatchThatEndsBeforeItsTimerIsStoredLeavesNoTimerRunning() async throws {
            let server = try LocalHTTPServer()
            let scheduler = SchedulingRecorder()
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = 3600
            manager.settings.completionDelay = 0
            let session = URLSession(configuration: .ephemeral)
            let first = session.dataTask(with: server.url("/a"))
            first.resume()
            await eventually { first.state == .completed }
            server.holdResponses()
            let second = session.dataTask(with: server.url("/b"))
            second.resume()
            scheduler.beforeNextTimerIsReturned { poll in
                poll()  // the first watch's poll: its task completed, the watch ends
                manager.track(second)  // a new watch of the same manager, with its own timer
            }
            manager.track(first)
            #expect(manager.activeTaskCount == 1, "the first ended, the second counts")
            second.cancel()
            await eventually { second.state == .completed }
            await eventually {
                scheduler.base.advance(by: URLSessionTaskPoller.interval)  // the polls run
                return manager.activeTaskCount == 0
            }
            #expect(scheduler.base.pendingWorkCount == 0, "every poll timer was cancelled")
            server.releaseResponses()
            session.finishTasksAndInvalidate()
        }
    }
}
#endif
