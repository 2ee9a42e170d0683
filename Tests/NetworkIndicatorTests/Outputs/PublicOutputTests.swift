import NetworkIndicator
import NetworkIndicatorTesting
import Testing

/// The outputs as an app creates them: through their public initializers only (no
/// `@testable`), so that an initializer that stops being public fails to compile here.
@MainActor
@Suite("Outputs through their public API")
struct PublicOutputTests {
    @Test func aModelCreatedOnItsOwnFollowsTheManagerItIsAddedTo() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let manager = NetworkIndicatorManager(scheduler: scheduler)
        manager.settings.startDelay = 0
        let model = NetworkIndicatorModel()
        manager.addOutput(model)
        manager.pushNetworkActivity()
        scheduler.runPendingWork()
        #expect(model.isVisible)
        #expect(model.activeTaskCount == 1)
    }
}
