import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@MainActor
@Suite("Scoped async activity and URLSession")
struct ScopedActivityTests {
    struct Failure: Error {}

    @Test func activeWhileTheBodyRunsAndEndedOnReturn() async {
        let harness = Harness()
        let result = await harness.manager.withNetworkActivity(label: "feed") {
            #expect(harness.manager.activeTaskCount == 1)
            #expect(harness.manager.activitySnapshot().activities.map(\.label) == ["feed"])
            return 42
        }
        #expect(result == 42)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func endedWhenTheBodyThrows() async {
        let harness = Harness()
        await #expect(throws: Failure.self) {
            try await harness.manager.withNetworkActivity { throw Failure() }
        }
        #expect(harness.manager.activeTaskCount == 0)
    }

    @Test func endedAsSoonAsTheTaskIsCancelled() async {
        let harness = Harness()
        let manager = harness.manager
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let task = Task.detached {
            await manager.withNetworkActivity {
                enteredContinuation.yield()
                for await _ in release { break }  // ignores cancellation until released
            }
        }
        for await _ in entered { break }
        #expect(manager.activeTaskCount == 1)
        task.cancel()
        #expect(manager.activeTaskCount == 0, "ended by the cancellation, though the body still runs")
        releaseContinuation.yield()
        await task.value
        #expect(manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func nonSendableBodyRunsOnTheCallersActor() async {
        let harness = Harness()
        let counter = NonSendableCounter()
        await harness.manager.withNetworkActivity {
            MainActor.assertIsolated()
            counter.value += 1
        }
        #expect(counter.value == 1)
    }

    @Test func resetDuringTheBodyEndsItQuietly() async {
        let harness = Harness()
        await harness.manager.withNetworkActivity {
            harness.manager.resetNetworkActivity()
        }
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }
}

/// Off the main actor, so that polling the count does not wait for other suites' main-actor work.
@Suite("URLSession loads")
struct URLSessionLoadTests {
    @Test func urlSessionDataIsTrackedForTheWholeLoad() async throws {
        let server = try LocalHTTPServer()
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let session = URLSession(configuration: .ephemeral)
        // Held until looked at: a load that could end before the first check would make the count
        // a window to catch, not a condition to wait for (the cooperative pool can be busy for
        // seconds with other suites' threads).
        server.holdResponses()
        let load = Task.detached {
            try await session.data(from: server.url("/delay/300"), tracking: manager)
        }
        await eventually { manager.activeTaskCount != 0 }
        #expect(manager.activeTaskCount == 1)
        #expect(manager.activitySnapshot().activities.first?.label == "GET 127.0.0.1/delay/300")
        server.releaseResponses()
        let (data, _) = try await load.value
        #expect(String(decoding: data, as: UTF8.self) == "ok /delay/300")
        #expect(manager.activeTaskCount == 0)

        let (requestData, _) = try await session.data(for: URLRequest(url: server.url("/a")), tracking: manager)
        #expect(String(decoding: requestData, as: UTF8.self) == "ok /a")
        #expect(manager.activeTaskCount == 0)
        session.finishTasksAndInvalidate()
    }
    @Test func dataForARequestIsTrackedUnderItsMethodHostAndPath() async throws {
        let server = try LocalHTTPServer()
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let session = URLSession(configuration: .ephemeral)
        server.holdResponses()  // the load stays open until its task has been looked at
        let request = URLRequest(url: server.url("/b"))
        let load = Task.detached {
            try await session.data(for: request, tracking: manager)
        }
        await eventually { manager.activeTaskCount != 0 }
        #expect(manager.activitySnapshot().activities.map(\.label) == ["GET 127.0.0.1/b"])
        server.releaseResponses()
        let (data, _) = try await load.value
        #expect(String(decoding: data, as: UTF8.self) == "ok /b")
        #expect(manager.activeTaskCount == 0)
        session.finishTasksAndInvalidate()
    }
}

private final class NonSendableCounter {
    var value = 0
}
