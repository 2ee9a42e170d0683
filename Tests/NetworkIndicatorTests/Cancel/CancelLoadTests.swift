import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// `cancelNetworkTasks()` on real loads against the loopback server, whose responses stay held
    /// throughout: only the cancel can end them. Off the main actor, like the other loads.
    @Suite("Cancelling loads")
    struct CancelLoadTests {
        private func makeScreen() -> (root: NetworkIndicatorManager, screen: NetworkIndicatorManager) {
            let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            root.settings.completionCheckInterval = 3600
            return (root, NetworkIndicatorManager(parent: root, label: "screen"))
        }

        /// Runs `test` with a loopback server that holds its responses, a screen under a root
        /// manager, and a session that is cancelled afterwards (before the responses are let go).
        private func withHeldLoads(
            _ test: (
                _ server: LocalHTTPServer,
                _ root: NetworkIndicatorManager,
                _ screen: NetworkIndicatorManager,
                _ session: URLSession
            ) async throws -> Void
        ) async throws {
            let server = try LocalHTTPServer()
            server.holdResponses()
            defer { server.releaseResponses() }
            let (root, screen) = makeScreen()
            let session = URLSession(configuration: .ephemeral)
            defer { session.invalidateAndCancel() }
            try await test(server, root, screen, session)
            // On Linux a cancelled helper's load runs on: the session's cancel stops it while its
            // response is held, which cannot race its completion.
            if !cancelledHelperLoadsStopAtOnce { session.invalidateAndCancel() }
            await server.waitUntilCancelledLoadsHaveStopped()  // before the deferred release
        }

        @Test func aTrackedURLSessionTaskIsCancelledAndEndsAtOnce() async throws {
            try await withHeldLoads { server, root, screen, session in
                let task = session.dataTask(with: server.url("/held"))
                screen.track(task)
                task.resume()
                screen.cancelNetworkTasks()
                #expect(screen.activeTaskCount == 0, "ended by the cancel, not by a poll or a sweep")
                #expect(root.activeTaskCount == 0)
                await eventually { task.state == .completed }
                #expect((task.error as? URLError)?.code == .cancelled)
            }
        }

        @Test func anAsyncHelpersLoadThrowsCancelledAtOnce() async throws {
            try await withHeldLoads { server, root, screen, session in
                let url = server.url("/held")
                let load = Task.detached { try await session.data(from: url, tracking: screen) }
                await eventually { root.activeTaskCount == 1 }
                screen.cancelNetworkTasks()
                #expect(root.activeTaskCount == 0, "ended by the cancel")
                let outcome = try await outcome(of: load)
                #expect(throws: URLError.self) { try outcome.get() }
                if case .failure(let error as URLError) = outcome { #expect(error.code == .cancelled) }
                #expect(!load.isCancelled, "the caller's task itself is not cancelled, only its load")
            }
        }

        /// Starts a helper's load that the server holds, has the screen cancel it, expects the call
        /// to throw `URLError(.cancelled)`, then runs `test` with the load's `URLSessionTask`.
        private func cancelAHeldLoad(
            _ test: (
                _ server: LocalHTTPServer,
                _ root: NetworkIndicatorManager,
                _ screen: NetworkIndicatorManager,
                _ session: URLSession,
                _ task: URLSessionTask
            ) async throws -> Void
        ) async throws {
            let server = try LocalHTTPServer()
            server.holdResponses()
            let (root, screen) = makeScreen()
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }
            let load = Task.detached { try await session.data(from: server.url("/held"), tracking: screen) }
            await eventually { root.activeTaskCount == 1 && runningTaskCount(of: session) == 1 }
            let task = try #require(allTasks(of: session).first)
            screen.cancelNetworkTasks()
            #expect((try await outcome(of: load).failure as? URLError)?.code == .cancelled)
            #expect(root.activeTaskCount == 0)
            try await test(server, root, screen, session, task)
        }

        /// The cancel stops the load's `URLSessionTask`, well before the request's own 60 s
        /// timeout would (the server still holds its response), freeing its connection for the
        /// next load: at once on Apple platforms, a second later on Linux.
        @Test func aCancelledHelperLoadStopsItsURLSessionTask() async throws {
            try await cancelAHeldLoad { server, root, screen, session, _ in
                await eventually(timeout: 20) { runningTaskCount(of: session) == 0 }
                await server.waitUntilCancelledLoadsHaveStopped()
                server.releaseResponses()
                let (data, _) = try await session.data(from: server.url("/next"), tracking: screen)
                #expect(String(decoding: data, as: UTF8.self) == "ok /next")
                #expect(root.activeTaskCount == 0)
            }
        }

        /// On Linux a cancelled load whose transfer ends within the second's grace is left to end
        /// (its result dropped): swift-corelibs-foundation crashes or deadlocks when a task is
        /// cancelled as it completes. On Apple platforms it was cancelled at once.
        @Test func aCancelledHelperLoadThatEndsWithinTheGraceIsLeftToEndOnLinux() async throws {
            try await cancelAHeldLoad { server, _, _, _, task in
                if cancelledHelperLoadsStopAtOnce { await server.waitUntilCancelledLoadsHaveStopped() }
                server.releaseResponses()
                await eventually { task.state == .completed }
                let code = (task.error as? URLError)?.code
                #expect(
                    cancelledHelperLoadsStopAtOnce ? code == .cancelled : task.error == nil,
                    "\(String(describing: task.error))"
                )
            }
        }

        @Test func eachAsyncHelperIsCancellable() async throws {
            try await withTemporaryFile(containing: "body") { file in
                try await withHeldLoads { server, root, screen, session in
                    let sent = httpRequest("POST", server.url("/held"))
                    var loads: [Task<Void, any Error>] = [
                        Task.detached { _ = try await session.data(for: sent, tracking: screen) },
                        Task.detached {
                            _ = try await session.upload(for: sent, from: Data("x".utf8), tracking: screen)
                        },
                        Task.detached { _ = try await session.upload(for: sent, fromFile: file, tracking: screen) },
                    ]
                    if #available(iOS 15.0, macOS 12.0, tvOS 15.0, watchOS 8.0, *) {
                        loads.append(Task.detached { _ = try await session.download(for: sent, tracking: screen) })
                        loads.append(
                            Task.detached { _ = try await session.download(from: sent.url!, tracking: screen) }
                        )
                    }
                    let count = loads.count
                    await eventually { root.activeTaskCount == count }
                    // Every request sent whole before the cancel: swift-corelibs-foundation crashes
                    // (EasyHandle.swift, a try! on libcurl's code 43) when a file upload's body source
                    // unpauses the transfer of a task cancelled meanwhile.
                    await eventually { server.requestsReceived == count }
                    screen.cancelNetworkTasks()
                    #expect(root.activeTaskCount == 0)
                    for (index, load) in loads.enumerated() {
                        let outcome = try await outcome(of: load)
                        #expect((outcome.failure as? URLError)?.code == .cancelled, "load \(index): \(outcome)")
                    }
                }
            }
        }

        @Test func loadsCancelledAsSoonAsTheyAreCountedThrowCancelled() async throws {
            try await withHeldLoads { server, root, screen, session in
                let url = server.url("/held")
                // Many loads, each cancelled as soon as it is counted, so that some cancels may land
                // while their load is still being set up.
                for _ in 0..<20 {
                    let load = Task.detached { try await session.data(from: url, tracking: screen) }
                    await eventually { root.activeTaskCount != 0 }
                    screen.cancelNetworkTasks()
                    let outcome = try await outcome(of: load)
                    #expect((outcome.failure as? URLError)?.code == .cancelled)
                }
                #expect(root.activeTaskCount == 0)
            }
        }

        @Test func aLoadThatCompletesIsNotAffectedByALaterCancel() async throws {
            let server = try LocalHTTPServer()
            let (root, screen) = makeScreen()
            let session = URLSession(configuration: .ephemeral)
            let (data, _) = try await session.data(from: server.url("/done"), tracking: screen)
            screen.cancelNetworkTasks()
            #expect(String(decoding: data, as: UTF8.self) == "ok /done")
            #expect(root.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }
    }
}

/// The tasks of `session` that are still running (not completed, nor being cancelled).
private func runningTaskCount(of session: URLSession) -> Int {
    allTasks(of: session).filter { $0.state == .running }.count
}

/// The tasks of `session` that have not completed.
private func allTasks(of session: URLSession) -> [URLSessionTask] {
    let all = LockedStateBox<[URLSessionTask]>([])
    let done = DispatchSemaphore(value: 0)
    session.getAllTasks { tasks in
        all.update { $0 = tasks }
        done.signal()
    }
    done.wait()
    return all.read()
}
