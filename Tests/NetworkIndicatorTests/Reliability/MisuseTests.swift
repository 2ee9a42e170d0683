import Foundation
import Testing

@testable import NetworkIndicator

/// Each misuse: no crash, no negative count, reported once.
@MainActor
@Suite("Misuse table")
struct MisuseTests {
    @Test func unknownFinish() {
        let harness = Harness()
        harness.manager.finishedNetworkTask(forToken: Token())
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
    }

    @Test func doubleFinish() {
        let harness = Harness()
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
    }

    @Test func popAtZero() {
        let harness = Harness()
        harness.manager.popNetworkActivity()
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.popWithoutPush])
    }

    @Test func popAtZeroNamesTheCallInItsReport() {
        let harness = Harness()
        harness.manager.popNetworkActivity()
        #expect(harness.diagnostics.all.map(\.label) == ["popNetworkActivity()"])
    }

    @Test func finishAfterReset() {
        let harness = Harness()
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token)
        harness.manager.resetNetworkActivity()
        harness.manager.finishedNetworkTask(forToken: token)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.kinds == [.unknownFinish])
    }

    @Test func finishFromADifferentThreadThanBegin() async {
        let harness = Harness()
        let token = Token()
        let manager = harness.manager
        await Task.detached { manager.beganNetworkTask(withToken: token) }.value
        await Task.detached { manager.finishedNetworkTask(forToken: token) }.value
        #expect(manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty, "not misuse at all")
    }

    @Test func beginWithATokenThatDiesBeforeTheCallReturns() {
        let harness = Harness()
        harness.manager.beganNetworkTask(withToken: Token())
        #expect(harness.manager.activeTaskCount == 1)
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all.isEmpty)
    }

    @Test func reusedAddressFinish() {
        let harness = Harness()
        var token: Token? = Token()
        let identity = ObjectIdentifier(token!)
        harness.manager.beganNetworkTask(withToken: token!, label: "upload")
        token = nil
        var keep: [Token] = []
        guard let reused = tokenReusingAddress(of: identity, keeping: &keep) else { return noteNoAddressReuse() }
        harness.manager.finishedNetworkTask(forToken: reused)
        #expect(harness.manager.activeTaskCount == 0)
        let ended = NetworkIndicatorDiagnostic(kind: .finishAfterTokenDeath, label: "upload")
        #expect(harness.diagnostics.all == [ended], "named by the task that ended")
    }

    /// A token that finishes its own task in its `deinit`: the report names the task by the
    /// label it was begun with, as every report does, not by the token's type.
    @Test func finishInTheTokensDeinitNamesItsLabel() {
        final class FinishesInDeinit {
            let manager: NetworkIndicatorManager
            init(_ manager: NetworkIndicatorManager) { self.manager = manager }
            deinit { manager.finishedNetworkTask(forToken: self) }
        }
        let harness = Harness()
        var token: FinishesInDeinit? = FinishesInDeinit(harness.manager)
        harness.manager.beganNetworkTask(withToken: token!, label: "upload")
        token = nil
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all == [.init(kind: .finishAfterTokenDeath, label: "upload")])
    }

    /// The group's other way to end an operation, called with none open, is reported as the
    /// same misuse, and the report's text names the call made.
    @Test func groupStoppedCountingWithoutStartNamesItsCall() {
        let harness = Harness()
        NetworkActivityGroup(manager: harness.manager, label: "feed").operationStoppedCounting()
        #expect(harness.diagnostics.kinds == [.groupFinishWithoutStart])
        #expect(harness.diagnostics.all.first?.description.contains("operationStoppedCounting()") == true)
    }

    @Test func groupFinishWithoutStart() {
        let harness = Harness()
        NetworkActivityGroup(manager: harness.manager, label: "g").operationFinished()
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all == [.init(kind: .groupFinishWithoutStart, label: "g")])
    }

    /// Diagnostics.swift (Kind.groupFinishWithoutStart) and the description: "on group '<label>'
    /// with no operation outstanding; ignored"; the group's default label is "NetworkActivityGroup".
    @Test func anUnlabelledGroupsExtraFinishIsReportedUnderTheGroupsDefaultName() {
        let harness = Harness()
        let group = NetworkActivityGroup(manager: harness.manager)
        group.operationStarted()
        group.operationFinished()
        group.operationFinished()
        #expect(harness.manager.activeTaskCount == 0)
        #expect(
            harness.diagnostics.all.map(\.description) == [
                "operationFinished() or operationStoppedCounting() on group 'NetworkActivityGroup' with no operation outstanding; ignored"
            ]
        )
    }

    /// Diagnostics.swift: "Misuse never crashes and never corrupts the count: the offending call
    /// is ignored (or, for a dead token, its tasks end) and one diagnostic describes what
    /// happened." A token finished from its own deinit, begun without a label, is named by its
    /// type and its task ends.
    @Test func finishInAnUnlabelledTokensDeinitEndsItsTaskAndNamesItsType() {
        final class SelfFinishingJob {
            let manager: NetworkIndicatorManager
            init(_ manager: NetworkIndicatorManager) { self.manager = manager }
            deinit { manager.finishedNetworkTask(forToken: self) }
        }
        let harness = Harness()
        var job: SelfFinishingJob? = SelfFinishingJob(harness.manager)
        harness.manager.beganNetworkTask(withToken: job!)
        #expect(harness.manager.activeTaskCount == 1)
        job = nil
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.diagnostics.all == [.init(kind: .finishAfterTokenDeath, label: "SelfFinishingJob")])
    }
}
