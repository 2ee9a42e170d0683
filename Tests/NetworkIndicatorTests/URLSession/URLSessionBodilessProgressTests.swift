import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// Tracked tasks at HTTP's edges, in `progressSnapshot()`: a request whose bytes have all gone
    /// still loads until its response has come, and an answer without a body adds no bytes.
    @Suite("URLSession progress at HTTP's edges")
    struct URLSessionBodilessProgressTests {
        private static let half = 64 * 1024

        private func makeManager(_ scheduler: ManualNetworkIndicatorScheduler) -> NetworkIndicatorManager {
            let manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = 3600
            manager.settings.completionDelay = 0
            return manager
        }

        /// A session with a delegate: the kind whose tasks Foundation counts the bytes of.
        private func makeSession() -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 3600
            return URLSession(configuration: configuration, delegate: DiscardingDownloadDelegate(), delegateQueue: nil)
        }

        /// Two downloads held halfway: `other`, tracked in `manager` (whose bar reads 0.5), and
        /// `late`, running untracked, its first half in.
        private func halfwayDownloads(
            from server: LocalHTTPServer,
            on session: URLSession,
            oneTrackedIn manager: NetworkIndicatorManager
        ) async -> (other: URLSessionDownloadTask, late: URLSessionDownloadTask) {
            let other = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(other)
            other.resume()
            let late = session.downloadTask(with: server.url("/half/\(Self.half)"))
            late.resume()
            await eventually {
                late.countOfBytesReceived == Int64(Self.half) && manager.progressSnapshot().fractionCompleted == 0.5
            }
            return (other, late)
        }

        @Test func anUploadAwaitingItsResponseIsNotAFullBar() async throws {
            let server = try LocalHTTPServer()
            let manager = makeManager(ManualNetworkIndicatorScheduler())
            let session = makeSession()
            server.holdResponses()
            let body = Data(repeating: 0x62, count: Self.half)
            let upload = session.uploadTask(with: httpRequest("POST", server.url("/held-upload")), from: body)
            manager.track(upload)
            upload.resume()
            await eventually { server.requestsReceived == 1 && upload.countOfBytesSent == Int64(body.count) }
            #expect(upload.state == .running)
            let fraction = manager.progressSnapshot().fractionCompleted
            #expect(fraction.map { $0 < 1 } ?? true, "every byte sent, and the response still awaited")
            server.releaseResponses()
            await eventually { upload.state == .completed }
            session.finishTasksAndInvalidate()
        }

        @MainActor
        @Test func aHeadRequestAddsNoBytesToTheBar() async throws {
            let server = try LocalHTTPServer()
            let scheduler = ManualNetworkIndicatorScheduler()
            let manager = makeManager(scheduler)
            let session = makeSession()
            server.holdResponses()
            let download = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.track(download)
            download.resume()
            await eventually { manager.progressSnapshot().fractionCompleted == 0.5 }
            let head = session.dataTask(with: httpRequest("HEAD", server.url("/head/100000")))
            manager.track(head)
            head.resume()
            await eventually { head.state == .completed }
            #expect(head.error == nil)
            await eventually {
                scheduler.advance(by: URLSessionTaskPoller.interval)
                return manager.activeTaskCount == 1
            }
            #expect(manager.progressSnapshot().fractionCompleted == 0.5, "its 100 000 bytes never came")
            server.releaseResponses()
            await eventually {
                scheduler.advance(by: URLSessionTaskPoller.interval)
                return manager.activeTaskCount == 0
            }
            session.finishTasksAndInvalidate()
        }

        /// The screen's cancel landing just after `track(_:)` began the download (another
        /// thread's; here run by the hop the begin enqueues), read before the download's own
        /// `cancel()` runs (by a group's handler cancelled before it): the part is listed in the
        /// begin's hold, so the cancel warns it, and its bytes leave the bar.
        @MainActor
        @Test func aDownloadTrackedJustAsItsScreenIsCancelledLeavesTheBar() async throws {
            let server = try LocalHTTPServer()
            server.holdResponses()
            let scheduler = HookedScheduler()
            let app = NetworkIndicatorManager(scheduler: scheduler, diagnosticsHandler: ignoreDiagnostics)
            app.settings.completionCheckInterval = 3600
            let screen = NetworkIndicatorManager(parent: app, label: "Screen")
            let counts = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
            screen.addOutput(counts)  // each count change enqueues a hop
            let session = makeSession()
            let (other, late) = await halfwayDownloads(from: server, on: session, oneTrackedIn: app)
            let refresh = NetworkActivityGroup(manager: screen, label: "Refresh")
            refresh.operationStarted()
            scheduler.base.runPendingWork()
            // The cancel runs on another thread; its handler reads once `track` has returned.
            let inHandler = DispatchSemaphore(value: 0)
            let tracked = DispatchSemaphore(value: 0)
            let readByHandler = LockedState<(fraction: Double?, beforeItsCancel: Bool)?>(nil)
            refresh.cancellationHandler = {
                inHandler.signal()
                tracked.wait()
                let reading = (app.progressSnapshot().fractionCompleted, late.state == .running)
                readByHandler.withLock { $0 = reading }
            }
            let cancelled = DispatchGroup()
            scheduler.beforeNextEnqueue {
                DispatchQueue.global().async(group: cancelled) { screen.cancelNetworkTasks() }
                inHandler.wait()
            }
            screen.track(late)
            tracked.signal()
            cancelled.wait()
            let read = try #require(readByHandler.withLock { $0 })
            #expect(read.beforeItsCancel)
            #expect(read.fraction == 0.5, "the cancelled download's bytes left the bar")
            #expect(app.progressSnapshot().fractionCompleted == 0.5)
            server.releaseResponses()
            await eventually { other.state == .completed }
            session.finishTasksAndInvalidate()
            withExtendedLifetime((refresh, counts)) {}
        }

        /// A download tracked on another thread while the screen's cancel runs, after the
        /// cancel's settle and before the hold that ends the tasks (the cancel's steps replayed
        /// in order): that hold finds its part listed and marks it cancelled before its task ends,
        /// so a reading before the download's own `cancel()` leaves its bytes out.
        @MainActor
        @Test func aDownloadTrackedWhileItsScreenIsCancelledLeavesTheBar() async throws {
            let server = try LocalHTTPServer()
            server.holdResponses()
            let app = makeManager(ManualNetworkIndicatorScheduler())
            let screen = NetworkIndicatorManager(parent: app, label: "Screen")
            let session = makeSession()
            let (other, late) = await halfwayDownloads(from: server, on: session, oneTrackedIn: app)
            screen.progressRollUp.settle(withSubtree: true)  // `cancelNetworkTasks()`'s first step
            screen.track(late)  // another thread's, in between
            let cancelled = screen.driver.cancelTree()  // the cancel's hold
            #expect(late.state == .running, "read before its own cancel() runs")
            #expect(app.progressSnapshot().fractionCompleted == 0.5, "its bytes left the bar")
            for work in cancelled { work.cancel() }
            server.releaseResponses()
            await eventually { other.state == .completed }
            session.finishTasksAndInvalidate()
        }
    }
}
