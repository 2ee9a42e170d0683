import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// The bytes of tracked URLSession tasks in `fractionCompleted`, against the loopback server's
    /// `/half/N` path, which sends the first half of a body with a known length and holds the rest:
    /// the load is surely halfway through until the test releases it. Download tasks of a session
    /// with a delegate: the kind whose bytes Foundation counts on every platform (see
    /// `URLSessionTaskProgress.ByteCounts`).
    @Suite("URLSession task progress")
    struct URLSessionTaskProgressTests {
        private static let half = 64 * 1024

        private func makeManager(
            _ scheduler: ManualNetworkIndicatorScheduler = ManualNetworkIndicatorScheduler()
        ) -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = 3600
            manager.settings.completionDelay = 0
            return manager
        }

        private func makeSession() -> URLSession {
            URLSession(configuration: .ephemeral, delegate: DiscardingDownloadDelegate(), delegateQueue: nil)
        }

        /// A tracked task whose load ended (the poll saw it complete), then begun again by hand
        /// without progress before anyone read: its ended part does not come back to measure the
        /// new task, which is work of unknown size.
        @Test func aTrackedTaskBegunAgainByHandAfterItsLoadEndedIsUnmeasured() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = makeManager(scheduler)
            let session = URLSession(configuration: .ephemeral)
            let task = session.dataTask(with: server.url("/a"))
            manager.track(task)
            task.resume()
            await eventually { task.state == .completed }
            #if canImport(FoundationNetworking)
            await MainActor.run { scheduler.advance(by: URLSessionTaskPoller.interval) }
            #endif
            await eventually { manager.activeTaskCount == 0 }
            manager.beganNetworkTask(withToken: task)
            let snapshot = manager.progressSnapshot()
            #expect(snapshot.hasIndeterminateWork, "the task begun again has no progress")
            #expect(snapshot.fractionCompleted == nil)
            manager.finishedNetworkTask(forToken: task)
            session.finishTasksAndInvalidate()
        }

        /// The units are the task's whatever is written to them (by Foundation's own bookkeeping,
        /// say): the roll-up reads the task, never a stored value. With no task attached yet, the
        /// reading is the initial one, an unknown total.
        @Test func writtenUnitsDoNotReplaceTheTasksReading() {
            let progress = URLSessionTaskProgress(task: nil)
            progress.totalUnitCount = 10
            progress.completedUnitCount = 5
            #expect(progress.totalUnitCount == -1)
            #expect(progress.completedUnitCount == 0)
        }

        /// A task let go before it completed never will: it reads failed, so that it leaves its
        /// batch. Until a task is attached, the reading is only unknown.
        @Test func aTaskGoneBeforeItCompletedReadsFailed() {
            let progress = URLSessionTaskProgress(task: nil)
            #expect(!progress.reading.isCancelled)
            do {
                // A task of no session, which nothing but this scope holds.
                let task = URLSessionDataTask()
                progress.attach(task)
                #expect(!progress.reading.isCancelled)
            }
            #expect(progress.reading.isCancelled)
        }

        @Test func trackedDownloadReadsHalfDoneWhileItsSecondHalfIsHeld() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager()
            let session = makeSession()
            server.holdResponses()
            let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(task)
            #expect(manager.progressSnapshot().fractionCompleted == nil, "no byte has been counted yet")
            task.resume()
            await eventually { manager.progressSnapshot().fractionCompleted == 0.5 }
            server.releaseResponses()
            await eventually { task.state == .completed }
            session.finishTasksAndInvalidate()
        }

        @MainActor
        @Test func aCompletedDownloadCountsAsDoneWhileAnotherRuns() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = makeManager(scheduler)
            let session = makeSession()
            server.holdResponses()
            startDownload(server.url("/half/\(Self.half)"), on: session, in: manager)
            await eventually { manager.progressSnapshot().fractionCompleted == 0.5 }
            // Ended and let go before anything reads it: its end is recorded as it ends.
            startDownload(server.url("/whole/\(2 * Self.half)"), on: session, in: manager)
            await polling(scheduler) { manager.activeTaskCount == 1 }
            #expect(manager.progressSnapshot().fractionCompleted == 0.75)
            server.releaseResponses()
            await polling(scheduler) { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        @MainActor
        @Test func aCompletedUploadCountsTheBytesItSent() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = makeManager(scheduler)
            let downloads = makeSession()
            server.holdResponses()
            startDownload(server.url("/half/\(Self.half)"), on: downloads, in: manager)
            await eventually { manager.progressSnapshot().fractionCompleted == 0.5 }
            let uploads = URLSession(configuration: .ephemeral)
            let request = httpRequest("POST", server.url("/whole/8"))
            do {
                let upload = uploads.uploadTask(with: request, from: Data(repeating: 0x62, count: 1024))
                manager.track(upload)
                upload.resume()
            }
            await polling(scheduler) { manager.activeTaskCount == 1 }
            // 1 024 bytes sent of 1 024, and half of the download's 2 × half.
            let expected = Double(1_024 + Self.half) / Double(1_024 + 2 * Self.half)
            #expect(manager.progressSnapshot().fractionCompleted == expected)
            server.releaseResponses()
            await polling(scheduler) { manager.activeTaskCount == 0 }
            uploads.finishTasksAndInvalidate()
            downloads.finishTasksAndInvalidate()
        }

        /// Runs the manual scheduler's polls (Linux reads the tracked tasks' states there) until
        /// `condition` holds.
        @MainActor
        private func polling(
            _ scheduler: ManualNetworkIndicatorScheduler,
            sourceLocation: SourceLocation = #_sourceLocation,
            until condition: () -> Bool
        ) async {
            await eventually(sourceLocation: sourceLocation) {
                scheduler.advance(by: URLSessionTaskPoller.interval)
                return condition()
            }
        }

        /// Tracks a download of `path` and resumes it, keeping nothing of it.
        private func startDownload(_ url: URL, on session: URLSession, in manager: NetworkIndicatorManager) {
            let task = session.downloadTask(with: url)
            manager.track(task)
            task.resume()
        }

        /// Tracked, or begun with its own `progress` (`beganNetworkTask(withToken: task, progress:
        /// task.progress)`, which is read as `track(task)` reads it: the task's bytes, which its own
        /// `progress` does not show on Linux, a failure that leaves the batch, an end at completion).
        @MainActor
        @Test(arguments: [false, true])
        func aFailedDownloadLeavesItsBatch(begunWithItsOwnProgress: Bool) async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = makeManager(scheduler)
            let session = makeSession()
            server.holdResponses()
            server.holdCuts()
            startDownload(server.url("/half/\(Self.half)"), on: session, in: manager)
            if begunWithItsOwnProgress {
                let cut = session.downloadTask(with: server.url("/cut/\(Self.half)"))
                manager.beganNetworkTask(withToken: cut, progress: cut.progress)
                cut.resume()
            } else {
                startDownload(server.url("/cut/\(Self.half)"), on: session, in: manager)
            }
            // Half of 2 × half, and a quarter of 4 × half.
            await eventually { manager.progressSnapshot().fractionCompleted == 2.0 / 6 }
            server.cutConnections()
            await polling(scheduler) { manager.activeTaskCount == 1 }
            // Counted as done, it would read (4 + 1) of (4 + 2) halves; it leaves both sums instead.
            #expect(manager.progressSnapshot().fractionCompleted == 0.5)
            server.releaseResponses()
            await polling(scheduler) { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        @MainActor
        @Test func aCancelledDownloadLeavesItsBatch() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = makeManager(scheduler)
            let session = makeSession()
            server.holdResponses()
            startDownload(server.url("/half/\(Self.half)"), on: session, in: manager)
            var cancelled: URLSessionTask? = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(cancelled!)
            cancelled!.resume()
            // Both totals known, and both first halves received (the bytes trail the headers).
            await eventually {
                manager.progressSnapshot().totalUnitCount == 4 * Int64(Self.half)
                    && manager.progressSnapshot().fractionCompleted == 0.5
            }
            cancelled!.cancel()
            cancelled = nil
            await polling(scheduler) { manager.activeTaskCount == 1 }
            // Counted as done, it would read 0.75; it drops out of both sums instead.
            #expect(manager.progressSnapshot().fractionCompleted == 0.5)
            await server.waitUntilCancelledLoadsHaveStopped(leavingHeld: 1)
            server.releaseResponses()
            await polling(scheduler) { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        /// A scope's cancel ends its tasks, then cancels their work one by one: a reading in
        /// between (here by the handler of a group cancelled first) must not count a download whose
        /// own cancel has not run yet as done. Two downloads the cancel cannot stop count as done,
        /// as before: one a finish already ended while it runs, and one that completed before the
        /// cancel, though no poll has ended it yet.
        @MainActor
        @Test func aDownloadCancelledWithItsScopeLeavesItsBatchEvenIfReadBeforeItsCancel() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let root = makeManager(scheduler)
            let screen = NetworkIndicatorManager(parent: root, label: "Screen")
            let session = makeSession()
            server.holdResponses()
            let refresh = NetworkActivityGroup(manager: screen, label: "Refresh")
            refresh.operationStarted()
            startDownload(server.url("/half/\(Self.half)"), on: session, in: root)
            let cancelled = session.downloadTask(with: server.url("/half/\(Self.half)"))
            screen.track(cancelled)
            cancelled.resume()
            // What the handler read, and whether the download's own cancel had yet to run.
            let readByTheHandler = LockedState<(fraction: Double?, beforeItsCancel: Bool)?>(nil)
            refresh.cancellationHandler = {
                let fraction = root.progressSnapshot().fractionCompleted
                readByTheHandler.withLock { $0 = (fraction, cancelled.state == .running) }
            }
            let finishedEarly = session.downloadTask(with: server.url("/half/\(Self.half)"))
            screen.track(finishedEarly)
            finishedEarly.resume()
            // Begun now (a later begin with progress would fold the early finish's part), resumed
            // once nothing reads any more: a reading that saw it complete would keep that reading.
            let completed = session.downloadTask(with: server.url("/whole/\(2 * Self.half)"))
            screen.track(completed)
            await eventually {
                root.progressSnapshot().totalUnitCount == 6 * Int64(Self.half)
                    && root.progressSnapshot().fractionCompleted == 0.5
            }
            screen.finishedNetworkTask(forToken: finishedEarly)
            completed.resume()
            await eventually { completed.state == .completed }
            screen.cancelNetworkTasks()
            // Done: half of root's download, the two the cancel could not stop; in neither sum: the
            // cancelled one. 5 of 6 halves; counted as done, the cancelled one would make it 7 of 8.
            let handler = try #require(readByTheHandler.withLock { $0 })
            #expect(handler.beforeItsCancel)
            #expect(handler.fraction == 5.0 / 6)
            #expect(root.progressSnapshot().fractionCompleted == 5.0 / 6)
            await server.waitUntilCancelledLoadsHaveStopped(leavingHeld: 2)
            server.releaseResponses()
            await polling(scheduler) { root.activeTaskCount == 0 }
            await eventually { finishedEarly.state == .completed }
            session.finishTasksAndInvalidate()
            withExtendedLifetime(refresh) {}
        }

        @Test func downloadInAChildScopeRollsIntoItsParent() async throws {
            let server = try LocalHTTPServer()
            let parent = makeManager()
            let child = NetworkIndicatorManager(parent: parent, label: "downloads")
            let session = makeSession()
            server.holdResponses()
            let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
            child.track(task)
            task.resume()
            await eventually { parent.progressSnapshot().fractionCompleted == 0.5 }
            server.releaseResponses()
            await eventually { task.state == .completed }
            session.finishTasksAndInvalidate()
        }
    }
}

/// Takes a download's file and removes it: a session with a delegate is the one whose download
/// tasks swift-corelibs-foundation counts the bytes of as they arrive.
final class DiscardingDownloadDelegate: NSObject, URLSessionDownloadDelegate, Sendable {
    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        removeDownloadedFile(at: location)
    }
}
