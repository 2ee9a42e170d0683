import Foundation
import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// Overlays of nested scopes, as `networkActivityScope` wires them: each draws for what is its
/// own, so that a parent and a child on screen together (split view, a dashboard) never draw two
/// cards for one load; and which refreshes an overlay leaves out, by platform.
@MainActor
@Suite("Scope overlays")
struct ScopeOverlayTests {
    /// An overlay's controller and what it drew.
    @MainActor
    private final class Overlay {
        var drawn: [Bool] = []
        var controller: NetworkActivityOverlayController!

        init() {
            controller = NetworkActivityOverlayController(
                settings: .init(showDelay: 0.5, minimumVisibleDuration: 1),
                accessibility: .init(isSeen: { true }, isVoiceOverRunning: { false }, post: { _, _ in })
            )
            controller.planChanged = planWatcher(drawn: { [unowned self] isDrawn, _ in drawn.append(isDrawn) })
        }
    }

    private let scheduler = ManualNetworkIndicatorScheduler()
    private let parent: NetworkIndicatorManager
    private let child: NetworkIndicatorManager
    private let parentRefreshes = ScopeOverlayExclusions()
    private let childRefreshes = ScopeOverlayExclusions()

    init() {
        parent = NetworkIndicatorManager(scheduler: scheduler)
        child = NetworkIndicatorManager(parent: parent, label: "Detail")
    }

    private func settle() {
        scheduler.runPendingWork()
        scheduler.advance(by: 0.5)
    }

    /// Both overlays on screen, as the scopes' contexts wire them.
    private func bothOnScreen() -> (parent: Overlay, child: Overlay) {
        let overlays = (parent: Overlay(), child: Overlay())
        overlays.parent.controller.appear(manager: parent, refreshes: parentRefreshes)
        overlays.child.controller.appear(manager: child, refreshes: childRefreshes, coveringIn: parentRefreshes)
        return overlays
    }

    @Test func aChildScopesLoadDrawsOnlyTheChildsOverlay() {
        let overlays = bothOnScreen()
        child.pushNetworkActivity()
        settle()
        #expect(overlays.child.drawn == [true])
        #expect(overlays.parent.drawn.isEmpty, "no second card over the same load")
        #expect(parent.activeTaskCount == 1, "the parent still counts it, for the app-wide indicator")
    }

    @Test func theParentsOwnLoadDrawsTheParentsOverlay() {
        let overlays = bothOnScreen()
        child.pushNetworkActivity()
        parent.pushNetworkActivity()
        settle()
        #expect(overlays.parent.drawn == [true])
        parent.popNetworkActivity()
        scheduler.runPendingWork()
        scheduler.advance(by: 1)
        #expect(overlays.parent.drawn == [true, false], "erased while the child still loads")
    }

    @Test func aChildOverlayGoingAwayHandsItsTasksBackToTheParent() {
        let overlays = bothOnScreen()
        child.pushNetworkActivity()
        settle()
        overlays.child.controller.disappear()
        scheduler.advance(by: 0.5)
        #expect(overlays.parent.drawn == [true], "the child's load is the parent's to show now")
    }

    @Test func aChildOverlayAppearingTakesOverADrawnLoad() {
        let parentOverlay = Overlay()
        parentOverlay.controller.appear(manager: parent, refreshes: parentRefreshes)
        child.pushNetworkActivity()
        settle()
        #expect(parentOverlay.drawn == [true])
        let childOverlay = Overlay()
        childOverlay.controller.appear(manager: child, refreshes: childRefreshes, coveringIn: parentRefreshes)
        scheduler.advance(by: 1)
        #expect(parentOverlay.drawn == [true, false], "after its minimum time")
    }

    @Test func twoOverlaysOfOneChildCoverItUntilBothGo() {
        let parentOverlay = Overlay()
        parentOverlay.controller.appear(manager: parent, refreshes: parentRefreshes)
        let first = Overlay()
        let second = Overlay()
        first.controller.appear(manager: child, refreshes: childRefreshes, coveringIn: parentRefreshes)
        second.controller.appear(manager: child, refreshes: childRefreshes, coveringIn: parentRefreshes)
        first.controller.disappear()
        child.pushNetworkActivity()
        settle()
        #expect(parentOverlay.drawn.isEmpty)
        second.controller.disappear()
        scheduler.advance(by: 0.5)
        #expect(parentOverlay.drawn == [true])
    }

    @Test func aScopeIsUsedOnlyForItsOwnManager() {
        let context = NetworkActivityScopeContext(manager: child, refreshes: childRefreshes, settings: .default)
        #expect(context.scope(of: child) != nil)
        #expect(context.scope(of: parent) == nil)
        #expect(context.refreshesToLeaveOut(of: parent, on: .iOS) == nil)
    }

    @Test func anOverlayUsesItsOwnSettingsThenItsScopesThenTheDefaults() {
        let own = NetworkActivityOverlaySettings(showDelay: 0.1)
        let scoped = NetworkActivityOverlaySettings(showDelay: 0.7)
        let context = NetworkActivityScopeContext(manager: child, refreshes: childRefreshes, settings: scoped)
        #expect(context.overlaySettings(of: child, given: own) == own, "its own settings win")
        #expect(context.overlaySettings(of: child, given: nil) == scoped, "its scope's")
        #expect(context.overlaySettings(of: parent, given: nil) == .default, "another manager's scope is not its")
        #expect(NetworkActivityScopeContext.overlaySettings(in: nil, of: child, given: nil) == .default)
        #expect(NetworkActivityScopeContext.overlaySettings(in: nil, of: child, given: own) == own)
    }

    @Test func refreshesAreLeftOutOnlyWhereTheSystemDrawsARefreshSpinner() {
        let context = NetworkActivityScopeContext(manager: child, refreshes: childRefreshes, settings: .default)
        // iOS, iPadOS and visionOS lists draw a refresh control (UIRefreshControl, visionOS 1+);
        // a Mac Catalyst app in the Mac idiom has none, nor do macOS, tvOS and watchOS.
        let spinning: [RefreshSpinnerPlatform] = [.iOS, .visionOS]
        for platform in spinning {
            #expect(context.refreshesToLeaveOut(of: child, on: platform) === childRefreshes, "\(platform)")
        }
        for platform in RefreshSpinnerPlatform.allCases where !spinning.contains(platform) {
            #expect(context.refreshesToLeaveOut(of: child, on: platform) == nil, "\(platform): a button's refresh")
        }
    }

    private func progress(_ completed: Int64, of total: Int64) -> Progress {
        let progress = Progress(totalUnitCount: total)
        progress.completedUnitCount = completed
        return progress
    }

    /// The parent's bar measures what its overlay draws for: once the child's overlay goes, the
    /// child's download is the parent's, all measured, and shows as a bar, though its fraction
    /// does not move (stalled at 40 %).
    @Test func aChildOverlayGoingAwayGivesItsMeasuredWorkToTheParentsBar() {
        let overlays = bothOnScreen()
        let download = child.beganNetworkTask(label: "Download", progress: progress(40, of: 100))
        settle()
        #expect(overlays.child.controller.progress.percent == 40)
        #expect(overlays.parent.drawn.isEmpty)
        overlays.child.controller.disappear()
        settle()
        #expect(overlays.parent.drawn == [true])
        #expect(overlays.parent.controller.progress.percent == 40, "a bar, not the spinner")
        withExtendedLifetime(download) {}
    }

    /// The covered child's work beside the parent's own download.
    enum ChildWork: CaseIterable, Sendable {
        /// A download of known size that runs on.
        case measured
        /// Work of unknown size that runs on.
        case unmeasured
        /// A download cancelled as the parent's ends: the batch the two shared ends short.
        case cancelledAsTheParentsEnds
    }

    /// As the parent's overlay fades, its bar shows 100 % if its own load had every unit, whatever
    /// a covered child's work does (the child's work is not the parent's overlay's): its own
    /// download, last read at 73 %, finished between two readings.
    @Test(arguments: ChildWork.allCases)
    func theParentsOwnDownloadEndsFullBesideACoveredChildsWork(childWork: ChildWork) {
        let overlays = bothOnScreen()
        let childProgress = childWork == .unmeasured ? nil : progress(10, of: 100)
        let childDownload = child.beganNetworkTask(label: "Child", progress: childProgress)
        let download = progress(0, of: 100)
        var own: NetworkActivityToken? = parent.beganNetworkTask(label: "Own", progress: download)
        settle()
        download.completedUnitCount = 73
        scheduler.advance(by: 0.1)
        #expect(overlays.parent.controller.progress.percent == 73)
        download.completedUnitCount = 100  // between two readings
        own = nil
        if childWork == .cancelledAsTheParentsEnds { childProgress?.cancel() }
        scheduler.runPendingWork()
        #expect(overlays.parent.drawn == [true], "its minimum time")
        #expect(overlays.parent.controller.progress.percent == 100, "not 73, not the spinner")
        withExtendedLifetime((childDownload, own)) {}
    }

    /// The same, one of its own downloads cancelled: the load did not have every unit, so the
    /// bar keeps where it was.
    @Test func theParentsOwnLoadWithACancelledPartDoesNotEndFullBesideACoveredChild() {
        let overlays = bothOnScreen()
        let childDownload = child.beganNetworkTask(label: "Child", progress: progress(10, of: 100))
        let (first, second) = (progress(0, of: 100), progress(0, of: 100))
        var own = [first, second].map { parent.beganNetworkTask(label: "Own", progress: $0) }
        settle()
        first.completedUnitCount = 100
        second.completedUnitCount = 50
        scheduler.advance(by: 0.1)
        #expect(overlays.parent.controller.progress.percent == 75)
        second.cancel()
        own = []
        scheduler.runPendingWork()
        #expect(overlays.parent.drawn == [true], "its minimum time")
        #expect(overlays.parent.controller.progress.percent == 75, "not 100: a part was cancelled")
        withExtendedLifetime((childDownload, own)) {}
    }
}
