import Foundation
import HTTPTypes
import NetworkIndicator
import NetworkIndicatorTesting
import OpenAPIRuntime
import Testing

@testable import NetworkIndicatorOpenAPI

/// Which clock a request's body uses: the middleware's scheduler's, or its manager's.
@Suite struct UnreadBodyClockTests {
    /// A body due sooner than the one the timer waits for re-arms the clock: the later timer is
    /// cancelled, so one timer runs per clock.
    @Test func anEarlierDeadlineReplacesTheTimer() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let clock = UnreadBodyClock(scheduler: scheduler)
        let group = NetworkActivityGroup(manager: manager)
        let bodies = (0..<2).map { _ in
            ResponseBodyActivity(
                task: group,
                cancellation: RequestCancellation(),
                progress: RequestProgress(uploadLength: nil),
                clock: clock,
                unreadTimeout: nil
            )
        }
        clock.tell(bodies[0], after: 30)
        clock.tell(bodies[1], after: 5)
        #expect(scheduler.scheduledTimerCount == 2)
        #expect(scheduler.pendingWorkCount == 1, "the timer for 30 s was cancelled")
        withExtendedLifetime(bodies) {}
    }

    @Test func requestsOfOneManagerShareOneClockOnItsScheduler() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        let clocks = UnreadBodyClocks(scheduler: nil)
        let clock = clocks.clock(for: manager)
        #expect(clocks.clock(for: manager) === clock)
        #expect(clock.scheduler as? ManualNetworkIndicatorScheduler === scheduler)
    }

    @Test func aSchedulerGivenToTheMiddlewareIsEveryManagersClock() {
        let given = ManualNetworkIndicatorScheduler()
        let clocks = UnreadBodyClocks(scheduler: given)
        let first = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let second = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        #expect(clocks.clock(for: first) === clocks.clock(for: second))
        #expect(clocks.clock(for: first).scheduler as? ManualNetworkIndicatorScheduler === given)
    }

    @Test func theClocksOfGoneManagersAreLetGo() {
        let clocks = UnreadBodyClocks(scheduler: nil)
        var screens = (0..<5).map { _ in NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler()) }
        for screen in screens { _ = clocks.clock(for: screen) }
        #expect(clocks.count == 5)
        screens.removeAll()
        let next = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        _ = clocks.clock(for: next)
        #expect(clocks.count == 1, "the gone screens' clocks go once another screen comes")
    }

    /// One client for the app, each screen's manager bound as `.current`, all on one scheduler:
    /// the screens' unread bodies share its one timer.
    @Test(arguments: [false, true])
    func unreadBodiesOfScreensOnOneSchedulerShareOneTimer(twoScreens: Bool) async throws {
        let scheduler = ManualNetworkIndicatorScheduler()
        let feed = NetworkIndicatorManager(scheduler: scheduler)
        let profile = twoScreens ? NetworkIndicatorManager(scheduler: scheduler) : feed
        let middleware = NetworkActivityMiddleware()
        var bodies: [HTTPBody?] = []
        for screen in [feed, profile] {
            let (_, body) = try await NetworkIndicatorManager.$current.withValue(screen) {
                try await middleware.intercept(
                    MiddlewareHarness.request,
                    body: nil,
                    baseURL: URL(string: "http://127.0.0.1")!,
                    operationID: "getThing"
                ) { _, _, _ in (HTTPResponse(status: .ok), ManualBody().body) }
            }
            bodies.append(body)
        }
        #expect(scheduler.scheduledTimerCount == 1, "one timer for the scheduler")
        withExtendedLifetime(bodies) {}
    }

    @Test func managersOnTheMainQueueShareOneClock() {
        let clocks = UnreadBodyClocks(scheduler: nil)
        let (feed, profile) = (NetworkIndicatorManager(), NetworkIndicatorManager())
        #expect(clocks.clock(for: feed) === clocks.clock(for: profile))
    }

    /// An app's manager and a screen's scope after another, each shown once: the shared clock
    /// remembers the managers that live, not every screen ever shown.
    @Test func aSharedClockForgetsTheScreensThatWent() {
        let clocks = UnreadBodyClocks(scheduler: nil)
        let app = NetworkIndicatorManager()
        _ = clocks.clock(for: app)
        for _ in 0..<100 {
            let screen = NetworkIndicatorManager(parent: app, label: "screen")
            _ = clocks.clock(for: screen)
        }
        #expect(clocks.count == 1)
        #expect(clocks.managerCount == 2, "the app's and the last screen's, gone only since")
    }

    @Test func managersOnOneSchedulerObjectShareOneClockAndOthersDoNot() {
        let clocks = UnreadBodyClocks(scheduler: nil)
        let shared = ManualNetworkIndicatorScheduler()
        let (feed, profile) = (NetworkIndicatorManager(scheduler: shared), NetworkIndicatorManager(scheduler: shared))
        let other = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        #expect(clocks.clock(for: feed) === clocks.clock(for: profile))
        #expect(clocks.clock(for: other) !== clocks.clock(for: feed))
    }

    /// A scheduler of a value type cannot be told equal to another: its managers get a clock
    /// each, and a manager made where a gone one lived must not get the gone one's clock, which
    /// runs on the gone one's scheduler.
    @Test func aManagerAtAGoneOnesAddressGetsAClockOnItsOwnScheduler() {
        let clocks = UnreadBodyClocks(scheduler: nil)
        var gone: NetworkIndicatorManager? = NetworkIndicatorManager(
            scheduler: ValueScheduler(base: ManualNetworkIndicatorScheduler())
        )
        let address = ObjectIdentifier(gone!)
        _ = clocks.clock(for: gone!, at: address)
        gone = nil
        let own = ManualNetworkIndicatorScheduler()
        let next = NetworkIndicatorManager(scheduler: ValueScheduler(base: own))
        #expect((clocks.clock(for: next, at: address).scheduler as? ValueScheduler)?.base === own)
    }

    /// A scheduler that is a value, passing its work to a manual one.
    private struct ValueScheduler: NetworkIndicatorScheduler {
        let base: ManualNetworkIndicatorScheduler
        var now: TimeInterval { base.now }

        func enqueue(_ work: @escaping @MainActor @Sendable () -> Void) {
            base.enqueue(work)
        }

        func schedule(
            after delay: TimeInterval,
            repeating interval: TimeInterval?,
            leeway: TimeInterval,
            _ work: @escaping @MainActor @Sendable () -> Void
        ) -> any NetworkIndicatorTimer {
            base.schedule(after: delay, repeating: interval, leeway: leeway, work)
        }
    }
}
