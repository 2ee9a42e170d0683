import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// VisibilityPolicy.md and PerScreenLoadingState.md, across scopes: each manager shows under
/// its own settings (delays, minimum visible duration, `isEnabled`, sweep interval) from the
/// count it shares with its scopes; "the feed's overlay can hide while the app-wide indicator
/// stays on", and "disabling the app-wide indicator leaves the screens' overlays alone".
@MainActor
@Suite("Each scope's indicator under its own settings")
struct ScopeVisibilityTests {
    // MARK: - isEnabled

    /// Disabling leaves a scope's outputs alone; enabling with a task open shows at once,
    /// without the start delay.
    @Test func disablingTheAppsIndicatorLeavesAScopesAloneAndEnablingShowsAtOnce() {
        let harness = Harness(startDelay: 0.5)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let feedOutput = RecordingNetworkIndicatorOutput()
        feed.addOutput(feedOutput)
        harness.manager.settings.isEnabled = false
        harness.settle()
        let token = feed.beganNetworkTask()
        harness.settle()
        #expect(feedOutput.visibilityChanges == [false, true])
        harness.advance(by: 1)
        #expect(harness.visibilityChanges == [false])
        harness.manager.settings.isEnabled = true
        harness.settle()
        #expect(harness.visibilityChanges == [false, true], "at once, no start delay")
        withExtendedLifetime(token) {}
    }

    /// Disabling hides at the next hop and cancels a pending delay; enabling with nothing open
    /// shows nothing. The parent goes on under its own delay.
    @Test func disablingAScopeDuringItsCompletionDelayHidesItAndLeavesNoTimer() {
        let harness = Harness(completionDelay: 0.5)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed.settings.completionDelay = 0.5
        let feedOutput = RecordingNetworkIndicatorOutput()
        feed.addOutput(feedOutput)
        var token: NetworkActivityToken? = feed.beganNetworkTask()
        harness.settle()
        token = nil
        harness.advance(by: 0.1)
        feed.settings.isEnabled = false
        harness.settle()
        #expect(feedOutput.visibilityChanges == [false, true, false])
        #expect(harness.visibilityChanges == [false, true], "the parent is still in its delay")
        harness.advance(by: 0.4)
        #expect(harness.visibilityChanges == [false, true, false])
        feed.settings.isEnabled = true
        harness.advance(by: 5)
        #expect(feedOutput.visibilityChanges == [false, true, false])
        #expect(harness.scheduler.pendingWorkCount == 0)
        _ = token
    }

    /// Tasks still count while disabled, and outputs that receive counts get them.
    @Test func aDisabledScopeStillTellsItsCounts() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let feedOutput = RecordingNetworkIndicatorOutput(receivesActiveTaskCount: true)
        feed.settings.isEnabled = false
        feed.addOutput(feedOutput)
        harness.settle()
        feed.pushNetworkActivity()
        harness.settle()
        feed.pushNetworkActivity()
        harness.settle()
        feed.popNetworkActivity()
        feed.popNetworkActivity()
        harness.settle()
        #expect(feedOutput.visibilityChanges == [false])
        #expect(feedOutput.activeTaskCounts == [0, 1, 2, 0])
        #expect(harness.visibilityChanges == [false, true, false])
    }

    @Test func aResetWhileDisabledLeavesNothingToShowOnEnabling() {
        let harness = Harness()
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        harness.manager.settings.isEnabled = false
        feed.pushNetworkActivity()
        harness.settle()
        harness.manager.resetNetworkActivity()
        harness.settle()
        harness.manager.settings.isEnabled = true
        harness.settle()
        harness.advance(by: 1)
        #expect(harness.visibilityChanges == [false])
    }

    // MARK: - Delays

    /// A start delay is measured from the begin that found nothing open: a scope's reset
    /// empties its parent, whose next begin waits the whole delay again.
    @Test func aResetInAScopeRestartsItsParentsStartDelay() {
        let harness = Harness(startDelay: 0.5)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let loader = Token()
        feed.beganNetworkTask(withToken: loader)
        harness.advance(by: 0.2)
        feed.resetNetworkActivity()
        #expect(harness.manager.activeTaskCount == 0)
        harness.advance(by: 0.1)
        let token = feed.beganNetworkTask()
        harness.advance(by: 0.2)  // 0.5: the first delay's end
        #expect(harness.visibilityChanges == [false])
        harness.advance(by: 0.299)
        #expect(harness.visibilityChanges == [false])
        harness.advance(by: 0.001)
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime((loader, token)) {}
    }

    /// A reset hides like any last task's end, after the completion delay; a sibling's task
    /// keeps the parent on.
    @Test func aResetOfAScopeLeavesItsParentOnForASibling() {
        let harness = Harness(completionDelay: 0.2)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let profile = NetworkIndicatorManager(parent: harness.manager, label: "Profile")
        feed.settings.completionDelay = 0.3
        let feedOutput = RecordingNetworkIndicatorOutput()
        feed.addOutput(feedOutput)
        let page = feed.beganNetworkTask()
        feed.pushNetworkActivity()
        let avatar = profile.beganNetworkTask()
        harness.settle()
        feed.resetNetworkActivity()
        #expect(harness.manager.activeTaskCount == 1)
        harness.settle()
        #expect(feedOutput.visibilityChanges == [false, true])
        harness.advance(by: 0.3)
        #expect(feedOutput.visibilityChanges == [false, true, false])
        #expect(harness.visibilityChanges == [false, true])
        profile.finishedNetworkTask(forToken: avatar)
        harness.advance(by: 0.2)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime((page, avatar)) {}
    }

    /// A dead token is noticed up to one sweep interval late, then each manager waits its own
    /// completion delay.
    @Test func aDeadTokenInAScopeHidesEachManagerAfterTheSweepAndItsOwnDelay() {
        let harness = Harness(completionDelay: 0.2, completionCheckInterval: 1)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let feedOutput = RecordingNetworkIndicatorOutput()
        feed.addOutput(feedOutput)
        feed.settings.completionDelay = 0.4
        var token: Token? = Token()
        feed.beganNetworkTask(withToken: token!)
        harness.settle()
        token = nil
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.2)
        #expect(harness.visibilityChanges == [false, true, false])
        #expect(feedOutput.visibilityChanges == [false, true])
        harness.advance(by: 0.2)
        #expect(feedOutput.visibilityChanges == [false, true, false])
        _ = token
    }

    /// `completionCheckInterval` is each manager's own: a scope's short one sweeps its dead token
    /// though the root's is long.
    @Test func aScopesOwnShortSweepIntervalEndsItsDeadToken() {
        let harness = Harness(completionCheckInterval: 10)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed.settings.completionCheckInterval = 0.5
        var token: Token? = Token()
        feed.beganNetworkTask(withToken: token!)
        harness.settle()
        token = nil
        harness.advance(by: 0.5)
        #expect(harness.manager.activeTaskCount == 0)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = token
    }

    /// A completion-reporting token of a scope, done inside the parent's start delay: the
    /// parent never shows.
    @Test func aScopesOperationDoneInsideItsParentsStartDelayNeverShowsIt() {
        let harness = Harness(startDelay: 1, completionCheckInterval: 1)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed.settings.startDelay = 5
        let operation = CompletableToken()
        feed.beganNetworkTask(withToken: operation)
        harness.settle()
        harness.advance(by: 0.5)
        operation.finish()
        harness.advance(by: 0.5)
        #expect(harness.manager.activeTaskCount == 0)
        harness.advance(by: 2)
        #expect(harness.visibilityChanges == [false])
    }

    /// A scope released inside its parent's start delay ends its tasks there: the parent never
    /// shows, and no timer is left.
    @Test func aScopeReleasedInsideItsParentsStartDelayNeverShowsIt() {
        let harness = Harness(startDelay: 0.5)
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed!.pushNetworkActivity()
        harness.settle()
        harness.advance(by: 0.2)
        feed = nil
        harness.advance(by: 2)
        #expect(harness.visibilityChanges == [false])
        #expect(harness.scheduler.pendingWorkCount == 0)
        _ = feed
    }

    /// A scope that goes away with its tasks ends them in every ancestor at once; its outputs
    /// are told false though inside its minimum visible duration; the parent hides after its
    /// own completion delay.
    @Test func aVisibleScopeReleasedInItsMinimumTellsFalseAtOnce() {
        let harness = Harness(completionDelay: 0.2)
        var feed: NetworkIndicatorManager? = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        feed!.settings.minimumVisibleDuration = 2
        let feedOutput = RecordingNetworkIndicatorOutput()
        feed!.addOutput(feedOutput)
        feed!.pushNetworkActivity()
        let loader = Token()
        feed!.beganNetworkTask(withToken: loader)
        harness.settle()
        #expect(harness.manager.activeTaskCount == 2)
        feed = nil
        #expect(harness.manager.activeTaskCount == 0)
        harness.settle()
        #expect(feedOutput.visibilityChanges == [false, true, false])
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.2)
        #expect(harness.visibilityChanges == [false, true, false])
        withExtendedLifetime(loader) {}
    }

    /// A delay already running is not restarted by a new value (here the completion delay).
    @Test func aCompletionDelayChangedWhileItRunsIsNotRestarted() {
        let harness = Harness(completionDelay: 1)
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.popNetworkActivity()
        harness.advance(by: 0.5)
        harness.manager.settings.completionDelay = 5
        harness.advance(by: 0.5)
        #expect(harness.visibilityChanges == [false, true, false])
    }

    /// PerScreenLoadingState.md's demo: the app lingers 0.2 s, the screens 0.1 s; the feed's
    /// overlay hides while the profile keeps the app-wide indicator on.
    @Test func theFeedsOverlayHidesWhileTheAppsIndicatorStaysOn() {
        let harness = Harness(completionDelay: 0.2)
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let profile = NetworkIndicatorManager(parent: harness.manager, label: "Profile")
        feed.settings.completionDelay = 0.1
        profile.settings.completionDelay = 0.1
        let feedOutput = RecordingNetworkIndicatorOutput()
        let profileOutput = RecordingNetworkIndicatorOutput()
        feed.addOutput(feedOutput)
        profile.addOutput(profileOutput)
        let page = feed.beganNetworkTask(label: "page 1")
        harness.settle()
        harness.advance(by: 0.8)
        let json = profile.beganNetworkTask(label: "profile.json")
        harness.advance(by: 0.4)  // 1.2
        feed.finishedNetworkTask(forToken: page)
        harness.advance(by: 0.1)  // 1.3
        #expect(feedOutput.visibilityChanges == [false, true, false])
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 1.3)  // 2.6
        profile.finishedNetworkTask(forToken: json)
        harness.advance(by: 0.1)  // 2.7
        #expect(profileOutput.visibilityChanges == [false, true, false])
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.1)  // 2.8
        #expect(harness.visibilityChanges == [false, true, false])
    }
}
