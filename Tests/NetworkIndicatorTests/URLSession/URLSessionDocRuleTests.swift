import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// What the URLSession docs (`Sources/NetworkIndicator`'s doc comments and DocC articles) promise
    /// a user, checked with public API and the test helpers only; each test quotes its sentence.
    @Suite("URLSession doc rules")
    struct URLSessionDocRuleTests {
        private static let half = 64 * 1024
        private let scheduler = ManualNetworkIndicatorScheduler()
        private let manager: NetworkIndicatorManager

        init() {
            manager = NetworkIndicatorManager(scheduler: scheduler)
            manager.settings.completionCheckInterval = 3600
            manager.settings.completionDelay = 0
        }

        /// A session whose loads only the test ends (no 60 s timeout), with `delegate` if given.
        private func makeSession(delegate: (any URLSessionDelegate)? = nil) -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 3600
            return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }

        /// GeneratedClientsAndURLSession.md:108-109: "A cancel (the screen's `cancelNetworkTasks()`,
        /// or the calling task's) resumes the call at once with `URLError(.cancelled)` and ends its
        /// task in the manager." The calling task's, with the response held throughout.
        @Test func aCallingTasksCancelThrowsURLErrorCancelled() async throws {
            let (server, session, manager) = (try LocalHTTPServer(), makeSession(), self.manager)
            server.holdResponses()
            let request = URLRequest(url: server.url("/held"))
            let load = Task.detached { try await session.data(for: request, tracking: manager) }
            await eventually { server.requestsReceived == 1 && manager.activeTaskCount == 1 }
            load.cancel()
            #expect((try await outcome(of: load).failure as? URLError)?.code == .cancelled)
            #expect(manager.activeTaskCount == 0)
            await stop(session, server)
        }

        /// PerScreenLoadingState.md:352-362: "`cancelNetworkTasks()` cancels the work of a manager
        /// and of its descendant scopes […] An ancestor's own tasks and the siblings' are never
        /// touched. […] a `URLSessionTask` […]: its tasks end, then its `cancel()` is called; […] the
        /// call throws `URLError(.cancelled)`".
        @Test func aCancelReachesItsScopesLoadsButNotItsAncestorsNorItsSiblings() async throws {
            let (server, session, app) = (try LocalHTTPServer(), makeSession(), self.manager)
            server.holdResponses()
            let feed = NetworkIndicatorManager(parent: app, label: "Feed")
            let detail = NetworkIndicatorManager(parent: feed, label: "Detail")
            let profile = NetworkIndicatorManager(parent: app, label: "Profile")
            let url = server.url("/held")
            let loads = [app, detail, profile].map { manager in
                Task.detached { try await session.data(from: url, tracking: manager) }
            }
            let tracked = session.dataTask(with: url)
            detail.track(tracked)
            tracked.resume()
            await eventually { server.requestsReceived == 4 && app.activeTaskCount == 4 }
            feed.cancelNetworkTasks()
            #expect(tracked.state != .running, "its cancel() ran before the screen's cancel returned")
            #expect(
                (try await outcome(of: loads[1]).failure as? URLError)?.code == .cancelled,
                "the load of the feed's own scope"
            )
            #expect(app.activeTaskCount == 2 && profile.activeTaskCount == 1, "the app's and the sibling's run on")
            app.cancelNetworkTasks()
            #expect((try await outcome(of: loads[0]).failure as? URLError)?.code == .cancelled)
            #expect((try await outcome(of: loads[2]).failure as? URLError)?.code == .cancelled)
            #expect(app.activeTaskCount == 0)
            await stop(session, server)
        }

        /// GeneratedClientsAndURLSession.md:110-113: "On Linux it lets the transfer run on for a
        /// second (your `delegate:`, if any, still hears it) and cancels it only if it still runs
        /// then; a result that comes sooner is dropped (a download's file deleted)."
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test(.enabled(if: !cancelledHelperLoadsStopAtOnce))
        func aCancelledDownloadThatEndsWithinTheSecondIsHeardAndItsFileDeleted() async throws {
            let (server, session, manager, recorder) = (try LocalHTTPServer(), makeSession(), self.manager, Recorder())
            let keptPath = "/kept-\(UUID().uuidString)"
            let (kept, _) = try await session.download(from: server.url(keptPath), tracking: manager)
            #expect(downloadedFiles(holding: "ok \(keptPath)").count == 1, "the control: the scan finds a file")
            removeDownloadedFile(at: kept)
            let path = "/dropped-\(UUID().uuidString)"
            server.holdResponses()
            let load = Task.detached {
                try await session.download(from: server.url(path), tracking: manager, delegate: recorder)
            }
            await eventually { server.requestsReceived == 2 }
            manager.cancelNetworkTasks()
            server.releaseResponses()  // within the second: the transfer ends, and its file is written
            #expect((try await outcome(of: load).failure as? URLError)?.code == .cancelled)
            // The whole body heard, within the grace (a machine too loaded to end the transfer
            // within the second had it cut: then there is nothing to check, and no file).
            for _ in 0..<400 where recorder.bodyCount < "ok \(path)".utf8.count {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            guard recorder.bodyCount == "ok \(path)".utf8.count else { return }
            await eventually { downloadedFiles(holding: "ok \(path)").isEmpty }
            session.finishTasksAndInvalidate()
        }

        enum Helper: CaseIterable, Sendable {
            case dataFor, dataFrom, downloadFor, downloadFrom, uploadData, uploadFile
        }

        /// GeneratedClientsAndURLSession.md:200-202: "`label:` on every `async` load […]. A label you
        /// give is shown as given"; FindingAStuckTask.md:85-86: "the `tracking:` loads […] take a
        /// `file:` and a `line:` that default to the caller's `#fileID` and `#line`"; `opaqueToken`
        /// (NetworkActivitySnapshot.swift:22-24): "a load of the async `URLSession` helpers"; a
        /// `delegate:` "hears the load's task messages" (URLSession+NetworkIndicator.swift:88-93).
        @available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *)
        @Test(arguments: Helper.allCases)
        func eachLoadShowsItsLabelAndCallerAndTellsItsDelegate(_ helper: Helper) async throws {
            try await withTemporaryFile(containing: "body") { file in
                let (server, s, m, d) = (try LocalHTTPServer(), makeSession(), self.manager, Recorder())
                server.holdResponses()
                let (r, l, body) = (httpRequest("POST", server.url("/secret?token=s3cr3t")), "my load", Data("x".utf8))
                let url = r.url!
                let (load, line): (@Sendable () async throws -> Void, Int) =
                    switch helper {
                    case .dataFor: ({ _ = try await s.data(for: r, tracking: m, label: l, delegate: d) }, #line)
                    case .dataFrom: ({ _ = try await s.data(from: url, tracking: m, label: l, delegate: d) }, #line)
                    case .downloadFor:
                        ({ removing(try await s.download(for: r, tracking: m, label: l, delegate: d)) }, #line)
                    case .downloadFrom:
                        ({ removing(try await s.download(from: url, tracking: m, label: l, delegate: d)) }, #line)
                    case .uploadData:
                        ({ _ = try await s.upload(for: r, from: body, tracking: m, label: l, delegate: d) }, #line)
                    case .uploadFile:
                        ({ _ = try await s.upload(for: r, fromFile: file, tracking: m, label: l, delegate: d) }, #line)
                    }
                let running = Task.detached(operation: load)
                await eventually { m.activeTaskCount == 1 }
                let activity = m.activitySnapshot().activities.first
                #expect(activity?.label == "my load")
                #expect(activity?.callSite == "URLSessionDocRuleTests.swift:\(line)")
                #expect(activity?.kind == .opaqueToken)
                server.releaseResponses()
                try await running.value
                #expect(m.activeTaskCount == 0)
                await eventually { d.bodyCount > 0 }
                s.finishTasksAndInvalidate()
            }
        }

        /// URLSession+NetworkIndicator.swift:106-107 (and each helper's): "On older releases and on
        /// Linux the helper cannot see its task: the load is indeterminate."
        @Test(.enabled(if: !hasKeyValueObserving))
        func aHelpersLoadIsIndeterminateOnLinux() async throws {
            #expect(try await fractionOfAHelpersLoadHalfwayThrough() == nil)
        }

        /// APIAtAGlance.md:61-65: "the `URLSession` helpers (on iOS 16, macOS 13 and later; on Linux
        /// their loads are indeterminate) […] feed their own." (It said so of Linux too, wrongly.)
        @Test(.enabled(if: hasKeyValueObserving)) func aHelpersLoadFeedsItsOwnProgress() async throws {
            let fraction = try await fractionOfAHelpersLoadHalfwayThrough()
            #expect(fraction == 0.5)
        }

        /// The fraction while `data(from:tracking:)` has half of a body of known length.
        private func fractionOfAHelpersLoadHalfwayThrough() async throws -> Double? {
            let (server, session, manager, recorder) = (try LocalHTTPServer(), makeSession(), self.manager, Recorder())
            server.holdResponses()
            let url = server.url("/half/\(Self.half)")
            let load = Task.detached { try await session.data(from: url, tracking: manager, delegate: recorder) }
            await eventually { recorder.bodyCount == Self.half }
            let fraction = manager.progressSnapshot().fractionCompleted
            server.releaseResponses()
            _ = try await load.value
            session.finishTasksAndInvalidate()
            return fraction
        }

        /// URLSession+NetworkIndicator.swift:20-22: "A task its session still holds unresumed stays
        /// counted, since it can still be resumed: […] invalidate the session with `invalidateAndCancel()`."
        @MainActor
        @Test func anUnresumedTaskItsSessionHoldsStaysCountedUntilTheSessionIsCancelled() async {
            let session = makeSession()
            manager.track(session.dataTask(with: URL(string: "http://127.0.0.1:9/")!))
            for _ in 0..<3 { scheduler.advance(by: 0.05) }
            #expect(manager.activeTaskCount == 1)
            session.invalidateAndCancel()
            await polls { manager.activeTaskCount == 0 }
        }

        /// URLSession+NetworkIndicator.swift:30-33: "On Linux, […] any other task [than the download
        /// and upload tasks of a session with a delegate] is indeterminate there (it neither adds to
        /// nor dilutes the fraction) until it completes"; ShowingProgress.md:48: "then counts as done."
        @MainActor
        @Test(.enabled(if: !hasKeyValueObserving))
        func aTrackedDataTaskIsIndeterminateOnLinuxUntilItCompletesThenDone() async throws {
            let (server, recorder) = (try LocalHTTPServer(), Recorder())
            server.holdResponses()
            server.holdCuts()
            let session = makeSession(delegate: recorder)
            let download = session.downloadTask(with: server.url("/cut/\(Self.half)"))  // 1 of 4 halves
            let data = session.dataTask(with: server.url("/half/\(Self.half)"))  // 1 of 2 halves
            trackAndResume([download, data])
            await eventually {
                recorder.bodyCount == 2 * Self.half && download.countOfBytesReceived == Int64(Self.half)
            }
            #expect(manager.progressSnapshot().fractionCompleted == 0.25, "counted, the data task makes it 2 of 6")
            #expect(manager.progressSnapshot().hasIndeterminateWork)
            server.releaseResponses()
            await eventually { data.state == .completed }
            #expect(manager.progressSnapshot().fractionCompleted == 0.5, "3 of 6 halves: the data task is done")
            await polls { manager.activeTaskCount == 1 }
            #expect(manager.progressSnapshot().fractionCompleted == 0.5)
            server.cutConnections()
            await polls { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        /// URLSession+NetworkIndicator.swift:34-35: "A response without a length, and an answer
        /// without a body (to a HEAD; a 204 or 304) are indeterminate everywhere"; ShowingProgress
        /// .md:49-50: "An answer without a body […] adds nothing, whatever length its headers give."
        @MainActor
        @Test(arguments: ["/head/100000/204", "/head/100000/304", "/unsized"])
        func anAnswerWithoutABodyOrALengthAddsNothing(answer: String) async throws {
            let (server, session) = (try LocalHTTPServer(), makeSession(delegate: Recorder()))
            server.holdResponses()
            trackAndResume([session.downloadTask(with: server.url("/half/\(Self.half)"))])
            await eventually { manager.progressSnapshot().fractionCompleted == 0.5 }
            let task = session.downloadTask(with: server.url(answer))
            trackAndResume([task])
            await eventually { task.state == .completed }
            #expect(task.error == nil)
            #expect(manager.progressSnapshot().fractionCompleted == 0.5)
            await polls { manager.activeTaskCount == 1 }
            #expect(manager.progressSnapshot().fractionCompleted == 0.5, "ended, it still adds nothing")
            server.releaseResponses()
            await polls { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        /// NetworkIndicatorManager.swift:132-134: "A `URLSessionTask` begun here with its own `progress` is
        /// read as `track` reads it […], with the `weight` given." Off the main queue (ShowingProgress.md:159).
        @Test func aTaskBegunWithItsOwnProgressWeighsTheWeightGiven() async throws {
            let (server, session, manager) = (try LocalHTTPServer(), makeSession(delegate: Recorder()), self.manager)
            server.holdResponses()
            let pages = manager.beganNetworkTask(progress: NetworkActivityProgress(totalUnitCount: 1_000))
            let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
            manager.beganNetworkTask(withToken: task, progress: task.progress, weight: 1_000)
            task.resume()
            await eventually { task.countOfBytesReceived == Int64(Self.half) }
            // Half of its 1 000 units beside none of 1 000; weighed by its bytes, about 0.5.
            #expect(manager.progressSnapshot().fractionCompleted == 0.25)
            server.releaseResponses()
            await eventually { task.state == .completed }
            session.finishTasksAndInvalidate()
            withExtendedLifetime(pages) {}
        }

        /// ShowingProgress.md:172-175: "[…] a tracked `URLSessionTask` […] listed with an unknown total,
        /// the timer reads once a second, to see the total become known (a download's, once its
        /// response headers arrive)."
        @MainActor
        @Test func anOutputHearsATrackedDownloadsFractionOnceItsSizeIsKnown() async throws {
            let (server, session, output) = (try LocalHTTPServer(), makeSession(delegate: Recorder()), Listener())
            server.holdResponses()
            manager.addOutput(output)
            let task = session.downloadTask(with: server.url("/half/\(Self.half)"))
            trackAndResume([task])
            scheduler.runPendingWork()
            await eventually { task.countOfBytesReceived == Int64(Self.half) }
            scheduler.advance(by: 1)
            #expect(output.fractions.last == 0.5)
            server.releaseResponses()
            await polls { manager.activeTaskCount == 0 }
            session.finishTasksAndInvalidate()
        }

        /// Tracks each task in the suite's manager and resumes it.
        private func trackAndResume(_ tasks: [URLSessionTask]) {
            for task in tasks {
                manager.track(task)
                task.resume()
            }
        }

        /// Runs the manual clock's polls (Linux reads tracked tasks there) until `condition` holds.
        @MainActor
        private func polls(until condition: () -> Bool) async {
            await eventually {
                scheduler.advance(by: 0.05)
                return condition()
            }
        }

        /// Stops the loads still running (on Linux, cancelled ones too), then lets responses go.
        private func stop(_ session: URLSession, _ server: LocalHTTPServer) async {
            session.invalidateAndCancel()
            await server.waitUntilCancelledLoadsHaveStopped()
            server.releaseResponses()
        }
    }
}

/// Removes the file of a download that the test does not read.
private func removing(_ download: (URL, URLResponse)) {
    removeDownloadedFile(at: download.0)
}

/// The temporary files that begin with `body`, at most twice it (as a download with a delegate).
private func downloadedFiles(holding body: String) -> [URL] {
    let (directory, count) = (FileManager.default.temporaryDirectory, body.utf8.count)
    let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
    return files.filter { file in
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0
        return (count...(2 * count)).contains(size)
            && (try? Data(contentsOf: file))?.starts(with: Data(body.utf8)) == true
    }
}

/// Counts the bytes its tasks receive (as data, or written by a download); deletes downloads' files.
private final class Recorder: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
    private let received = LockedStateBox(0)
    var bodyCount: Int { received.read() }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.update { $0 += data.count }
    }

    func urlSession(
        _ session: URLSession,
        downloadTask: URLSessionDownloadTask,
        didWriteData bytesWritten: Int64,
        totalBytesWritten: Int64,
        totalBytesExpectedToWrite: Int64
    ) {
        received.update { $0 += Int(bytesWritten) }
    }

    func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        removeDownloadedFile(at: location)
    }
}

/// An output that records each fraction it is told.
@MainActor
private final class Listener: NetworkIndicatorOutput {
    private(set) var fractions: [Double?] = []
    var receivesFractionCompleted: Bool { true }
    func networkIndicatorVisibilityDidChange(_ isVisible: Bool) {}
    func networkIndicatorFractionCompletedDidChange(_ fraction: Double?) { fractions.append(fraction) }
}
