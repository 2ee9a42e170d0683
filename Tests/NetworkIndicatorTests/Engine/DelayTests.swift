import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

@MainActor
@Suite("Start and completion delays through the manager")
struct DelayTests {
    @Test func defaultsShowAtOnceAndLingerBriefly() {
        let manager = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        #expect(manager.settings.startDelay == 0)
        #expect(manager.settings.completionDelay == 0.2)
        #expect(manager.settings.completionCheckInterval == 1)
        #expect(manager.settings.isEnabled)
        #expect(manager.settings.staleTaskThreshold == nil)
    }

    @Test func shortTaskInsideStartDelayNeverShows() {
        let harness = Harness(startDelay: 0.5)
        let token = harness.manager.beganNetworkTask()
        harness.advance(by: 0.3)
        harness.manager.finishedNetworkTask(forToken: token)
        harness.advance(by: 5)
        #expect(harness.visibilityChanges == [false])
        #expect(harness.scheduler.pendingWorkCount == 0)
    }

    @Test func longTaskShowsWhenStartDelayElapses() {
        let harness = Harness(startDelay: 0.5)
        let token = harness.manager.beganNetworkTask()
        harness.advance(by: 0.499)
        #expect(harness.visibilityChanges == [false])
        harness.advance(by: 0.001)
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime(token) {}
    }

    @Test func backToBackTasksDoNotFlicker() {
        let harness = Harness(completionDelay: 0.2)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        first = nil
        harness.advance(by: 0.1)
        let second = harness.manager.beganNetworkTask()
        harness.advance(by: 1)
        #expect(harness.visibilityChanges == [false, true], "no off/on between the two")
        harness.manager.finishedNetworkTask(forToken: second)
        harness.advance(by: 0.199)
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.001)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = first
    }

    @Test func sweepsDoNotRestartAPendingStartDelay() {
        let harness = Harness(startDelay: 2.5, completionCheckInterval: 1)
        let token = Token()
        harness.manager.beganNetworkTask(withToken: token)
        harness.advance(by: 2)  // two sweeps run during the start delay
        #expect(harness.scheduler.executedWorkCount >= 2)
        #expect(harness.visibilityChanges == [false])
        harness.advance(by: 0.5)
        #expect(harness.visibilityChanges == [false, true], "2.5 s after the begin, not after a sweep")
        withExtendedLifetime(token) {}
    }

    @Test func sweepEndingOneOfSeveralTokensKeepsTheIndicator() {
        let harness = Harness(completionDelay: 0.2)
        var dead: Token? = Token()
        let alive = Token()
        harness.manager.beganNetworkTask(withToken: dead!)
        harness.manager.beganNetworkTask(withToken: alive)
        harness.settle()
        dead = nil
        harness.advance(by: 1)
        #expect(harness.manager.activeTaskCount == 1)
        #expect(harness.visibilityChanges == [false, true])
        harness.manager.finishedNetworkTask(forToken: alive)
        harness.advance(by: 0.2)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = dead
    }

    @Test func aBurstDuringTheHideDelayNeedsNoHopAndHidesAfterTheLastEnd() {
        let harness = Harness(completionDelay: 0.2)
        harness.manager.pushNetworkActivity()
        harness.settle()
        harness.manager.popNetworkActivity()
        harness.settle()  // the hide delay starts
        let hops = harness.scheduler.enqueuedWorkCount
        harness.advance(by: 0.1)
        for _ in 0..<1_000 {
            let token = harness.manager.beganNetworkTask()
            harness.manager.finishedNetworkTask(forToken: token)
            harness.manager.pushNetworkActivity()
            harness.manager.popNetworkActivity()
        }
        #expect(harness.scheduler.enqueuedWorkCount == hops, "the running delay absorbs the burst")
        harness.advance(by: 0.1)  // the first deadline: everything ended only 0.1 s ago
        #expect(harness.visibilityChanges == [false, true])
        harness.advance(by: 0.1)
        #expect(harness.visibilityChanges == [false, true, false])
        #expect(harness.scheduler.pendingWorkCount == 0)
    }

    @Test func aTaskStillRunningWhenTheHideDelayEndsKeepsTheIndicator() {
        let harness = Harness(completionDelay: 0.2)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.settle()
        first = nil
        harness.settle()
        let second = harness.manager.beganNetworkTask()  // absorbed: no hop
        harness.advance(by: 5)
        #expect(harness.visibilityChanges == [false, true])
        #expect(harness.scheduler.pendingWorkCount == 0)
        harness.manager.finishedNetworkTask(forToken: second)
        harness.advance(by: 0.2)
        #expect(harness.visibilityChanges == [false, true, false])
        _ = first
    }

    @Test func aStartDelayMeasuresFromTheBeginThatFoundNothingActive() {
        let harness = Harness(startDelay: 1)
        var first: NetworkActivityToken? = harness.manager.beganNetworkTask()
        harness.advance(by: 0.5)
        first = nil  // absorbed
        harness.advance(by: 0.2)
        let second = harness.manager.beganNetworkTask()  // absorbed, at 0.7
        harness.advance(by: 0.3)  // the first deadline
        #expect(harness.visibilityChanges == [false], "the second task has run for 0.3 s only")
        harness.advance(by: 0.7)
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime(second) {}
        _ = first
    }

    @Test func changingADelayDoesNotRestartTheRunningOne() {
        let harness = Harness(startDelay: 1)
        let token = harness.manager.beganNetworkTask()
        harness.advance(by: 0.5)
        harness.manager.settings.startDelay = 10
        harness.advance(by: 0.5)
        #expect(harness.visibilityChanges == [false, true])
        withExtendedLifetime(token) {}
    }

    @Test func disablingHidesButKeepsCountingAndEnablingShowsAtOnce() {
        let harness = Harness(startDelay: 1)
        harness.manager.settings.isEnabled = false
        let token = harness.manager.beganNetworkTask()
        harness.advance(by: 5)
        #expect(harness.visibilityChanges == [false])
        #expect(harness.manager.activeTaskCount == 1)
        harness.manager.settings.isEnabled = true
        harness.settle()
        #expect(harness.visibilityChanges == [false, true])
        harness.manager.settings.isEnabled = false
        harness.settle()
        #expect(harness.visibilityChanges == [false, true, false])
        #expect(harness.scheduler.pendingWorkCount == 0)
        withExtendedLifetime(token) {}
    }

    @Test func invalidSettingsAreReplacedAndReported() {
        let harness = Harness()
        harness.manager.settings.completionCheckInterval = 0
        harness.manager.settings.startDelay = -1
        harness.manager.settings.completionDelay = .nan
        harness.manager.settings.staleTaskThreshold = -5
        #expect(harness.manager.settings.completionCheckInterval == 1)
        #expect(harness.manager.settings.startDelay == 0)
        #expect(harness.manager.settings.completionDelay == 0)
        #expect(harness.manager.settings.staleTaskThreshold == nil)
        #expect(
            harness.diagnostics.kinds == [
                .invalidSetting(name: "completionCheckInterval", replacement: 1),
                .invalidSetting(name: "startDelay", replacement: 0),
                .invalidSetting(name: "completionDelay", replacement: 0),
                .invalidSetting(name: "staleTaskThreshold", replacement: nil),
            ]
        )
    }

    /// A whole settings value is checked field by field: each bad value is replaced and
    /// reported once, the good ones kept, and a value read back is the one in force.
    @Test func aWholeSettingsValueIsCheckedFieldByField() {
        let fresh = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        #expect(fresh.settings == NetworkIndicatorSettings(), "a manager starts with the value's defaults")
        let harness = Harness()
        harness.manager.settings = NetworkIndicatorSettings(
            startDelay: 0.3,
            completionDelay: -2,
            minimumVisibleDuration: .infinity,
            isEnabled: false,
            staleTaskThreshold: 30
        )
        #expect(
            harness.manager.settings
                == NetworkIndicatorSettings(
                    startDelay: 0.3,
                    completionDelay: 0,
                    minimumVisibleDuration: 0,
                    isEnabled: false,
                    staleTaskThreshold: 30
                )
        )
        #expect(
            harness.diagnostics.kinds == [
                .invalidSetting(name: "completionDelay", replacement: 0),
                .invalidSetting(name: "minimumVisibleDuration", replacement: 0),
            ]
        )
        harness.manager.settings.startDelay = 1  // the rest, already valid, is not reported again
        #expect(harness.diagnostics.kinds.count == 2)
    }

    /// A stale-task threshold of zero would call every task stale at once, so it is refused,
    /// unlike a zero delay, which means "none".
    @Test func aZeroStaleTaskThresholdIsRefusedButZeroDelaysAreValid() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 0
        harness.manager.settings.startDelay = 0
        harness.manager.settings.completionDelay = 0
        harness.manager.settings.minimumVisibleDuration = 0
        #expect(harness.manager.settings.staleTaskThreshold == nil)
        #expect(harness.diagnostics.kinds == [.invalidSetting(name: "staleTaskThreshold", replacement: nil)])
    }

    /// A sweep faster than 100 times a second shows nothing sooner on screen and keeps the main
    /// queue busy: a tiny interval is raised to the floor and reported, the floor itself kept.
    @Test func aCompletionCheckIntervalBelowTheFloorIsRaised() {
        let harness = Harness()
        harness.manager.settings.completionCheckInterval = 1e-9
        #expect(harness.manager.settings.completionCheckInterval == 0.01)
        harness.manager.settings.completionCheckInterval = 0.01
        #expect(harness.manager.settings.completionCheckInterval == 0.01)
        #expect(harness.diagnostics.kinds == [.invalidSetting(name: "completionCheckInterval", replacement: 0.01)])
    }

    /// A task in a scope three deep hides four indicators, each after its own completion
    /// delay: the tree runs one timer for all four, and one firing hides them together.
    @Test func aHideAcrossFourManagersRunsOneTimer() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let section = NetworkIndicatorManager(parent: screen, label: "section")
        let row = NetworkIndicatorManager(parent: section, label: "row")
        let managers = [root, screen, section, row]
        let outputs = managers.map { _ in RecordingNetworkIndicatorOutput() }
        for (manager, output) in zip(managers, outputs) { manager.addOutput(output) }
        var token: NetworkActivityToken? = row.beganNetworkTask()
        scheduler.runPendingWork()
        #expect(outputs.map(\.visibilityChanges) == Array(repeating: [false, true], count: 4))
        let timersBefore = scheduler.scheduledTimerCount
        let workBefore = scheduler.executedWorkCount

        token = nil
        scheduler.advance(by: 0.2)

        #expect(outputs.map(\.visibilityChanges) == Array(repeating: [false, true, false], count: 4))
        #expect(scheduler.scheduledTimerCount - timersBefore == 1, "one timer for four completion delays")
        #expect(scheduler.executedWorkCount - workBefore == 2, "one hop, one firing")
        #expect(scheduler.pendingWorkCount == 0)
        _ = token
    }

    /// A scope released while its hide waits: the tree's timer waits for the root's hide only,
    /// and fires nothing for the scope.
    @Test func aReleasedScopesDeadlineLeavesTheTreesTimer() {
        let scheduler = ManualNetworkIndicatorScheduler()
        let root = NetworkIndicatorManager(scheduler: scheduler)
        root.settings.completionDelay = 5
        root.addOutput(RecordingNetworkIndicatorOutput())
        var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "Detail")
        scope?.settings.completionDelay = 1
        scope?.addOutput(RecordingNetworkIndicatorOutput())
        var token = scope?.beganNetworkTask()
        scheduler.runPendingWork()
        token = nil
        scheduler.runPendingWork()
        #expect(scheduler.nextDeadline == 1, "the scope's hide first")
        scope = nil
        scheduler.runPendingWork()
        #expect(scheduler.nextDeadline == 5, "the root's hide only")
        let executed = scheduler.executedWorkCount
        scheduler.advance(by: 4.9)
        #expect(scheduler.executedWorkCount == executed, "no firing for the released scope")
        _ = token
    }
}
