import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RealLoadSuites {
    /// `NetworkIndicatorManager.current`: the task-local manager that one shared client counts each
    /// call in, bound per screen with `$current.withValue`.
    @Suite("The task-local current manager")
    struct CurrentManagerTests {
        @Test func currentIsTheSharedManagerUnlessBound() {
            #expect(NetworkIndicatorManager.current === NetworkIndicatorManager.shared)
        }

        @Test func bindingLastsForTheClosureAndReachesChildTasks() async {
            let screen = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let (inside, inChild) = await NetworkIndicatorManager.$current.withValue(screen) {
                (NetworkIndicatorManager.current, await Task { NetworkIndicatorManager.current }.value)
            }
            #expect(inside === screen)
            #expect(inChild === screen)
            #expect(NetworkIndicatorManager.current === NetworkIndicatorManager.shared)
        }

        @Test func detachedTaskDoesNotInheritTheBinding() async {
            let screen = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            let inDetached = await NetworkIndicatorManager.$current.withValue(screen) {
                await Task.detached { NetworkIndicatorManager.current }.value
            }
            #expect(inDetached === NetworkIndicatorManager.shared)
        }

        @Test func loadTrackingTheCurrentManagerCountsInTheScreenThatMadeIt() async throws {
            let server = try LocalHTTPServer()
            let app = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            app.settings.completionCheckInterval = 3600
            let feed = NetworkIndicatorManager(parent: app, label: "feed")
            let profile = NetworkIndicatorManager(parent: app, label: "profile")
            let session = URLSession(configuration: .ephemeral)
            server.holdResponses()
            let load = Task.detached {
                try await NetworkIndicatorManager.$current.withValue(feed) {
                    try await session.data(from: server.url("/posts"), tracking: .current)
                }
            }
            await eventually { app.activeTaskCount != 0 }
            let counts = (feed: feed.activeTaskCount, profile: profile.activeTaskCount, app: app.activeTaskCount)
            server.releaseResponses()
            let (data, _) = try await load.value
            #expect(String(decoding: data, as: UTF8.self) == "ok /posts")
            #expect(counts == (feed: 1, profile: 0, app: 1))
            #expect(feed.activeTaskCount == 0)
            session.finishTasksAndInvalidate()
        }
    }
}
