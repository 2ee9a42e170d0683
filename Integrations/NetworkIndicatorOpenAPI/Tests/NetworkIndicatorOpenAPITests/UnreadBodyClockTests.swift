import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
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

    /// A manager made where a gone one lived must not get the gone one's clock, which runs on
    /// the gone one's scheduler.
    @Test func aManagerAtAGoneOnesAddressGetsAClockOnItsOwnScheduler() {
        let clocks = UnreadBodyClocks(scheduler: nil)
        var gone: NetworkIndicatorManager? = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        let address = ObjectIdentifier(gone!)
        _ = clocks.clock(for: gone!, at: address)
        gone = nil
        let own = ManualNetworkIndicatorScheduler()
        let next = NetworkIndicatorManager(scheduler: own)
        #expect(clocks.clock(for: next, at: address).scheduler as? ManualNetworkIndicatorScheduler === own)
    }
}
