import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// A scope's progress rolls into its ancestors', never into its siblings'.
@MainActor
@Suite("Progress across scopes")
struct ScopeProgressTests {
    private let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    @Test func aChildsProgressRollsIntoItsParentAndTheRoot() {
        let screen = NetworkIndicatorManager(parent: root, label: "Screen")
        let section = NetworkIndicatorManager(parent: screen, label: "Section")
        let token = section.beganNetworkTask(progress: progress(20, of: 100))
        #expect(section.progressSnapshot().fractionCompleted == 0.2)
        #expect(screen.progressSnapshot().fractionCompleted == 0.2)
        #expect(root.progressSnapshot().fractionCompleted == 0.2)
        withExtendedLifetime(token) {}
    }

    @Test func aParentRollsUpItsOwnAndItsChildrensTasks() {
        let screen = NetworkIndicatorManager(parent: root, label: "Screen")
        let own = root.beganNetworkTask(progress: progress(0, of: 100))
        let held = screen.beganNetworkTask(progress: progress(50, of: 100))
        #expect(screen.progressSnapshot().fractionCompleted == 0.5)
        #expect(root.progressSnapshot().fractionCompleted == 0.25)
        withExtendedLifetime((own, held)) {}
    }

    @Test func siblingsDoNotSeeEachOthersProgress() {
        let feed = NetworkIndicatorManager(parent: root, label: "Feed")
        let profile = NetworkIndicatorManager(parent: root, label: "Profile")
        let token = feed.beganNetworkTask(progress: progress(30, of: 100))
        let plain = profile.beganNetworkTask()
        #expect(profile.progressSnapshot().fractionCompleted == nil)
        #expect(root.progressSnapshot().fractionCompleted == 0.3)
        withExtendedLifetime((token, plain)) {}
    }

    @Test func aChildsEndedTaskCountsAsCompleteInTheBusyParent() {
        let screen = NetworkIndicatorManager(parent: root, label: "Screen")
        var download: NetworkActivityToken? = screen.beganNetworkTask(progress: progress(10, of: 100))
        let other = root.beganNetworkTask(progress: progress(0, of: 100))
        download = nil
        #expect(screen.progressSnapshot().fractionCompleted == nil, "the screen is idle")
        #expect(root.progressSnapshot().fractionCompleted == 0.5, "the root is still busy")
        withExtendedLifetime((download, other)) {}
    }

    @Test func releasingAChildEndsItsTokensProgressInTheParent() {
        var screen: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "Screen")
        let request = Token()
        screen!.beganNetworkTask(withToken: request, progress: progress(10, of: 100))
        let other = root.beganNetworkTask(progress: progress(0, of: 100))
        screen = nil
        #expect(root.progressSnapshot().fractionCompleted == 0.5)
        withExtendedLifetime((request, other)) {}
    }

    @Test func oneTokenWithProgressInTwoScopesCountsOnceInEach() {
        let feed = NetworkIndicatorManager(parent: root, label: "Feed")
        let profile = NetworkIndicatorManager(parent: root, label: "Profile")
        let request = Token()
        feed.beganNetworkTask(withToken: request, progress: progress(10, of: 100))
        profile.beganNetworkTask(withToken: request, progress: progress(30, of: 100))
        #expect(feed.progressSnapshot().fractionCompleted == 0.1)
        #expect(profile.progressSnapshot().fractionCompleted == 0.3)
        #expect(root.progressSnapshot().fractionCompleted == 0.2, "two tasks of 100 units, 40 done")
        #expect(root.progressSnapshot().hasIndeterminateWork == false, "both tasks are measured")
        withExtendedLifetime(request) {}
    }

    @Test func aParentIdleSinceTheLastReadingStartsAfreshWhenAChildBegins() {
        let screen = NetworkIndicatorManager(parent: root, label: "Screen")
        var old: NetworkActivityToken? = root.beganNetworkTask(progress: progress(100, of: 100))
        old = nil
        let new = screen.beganNetworkTask(progress: progress(0, of: 100))
        #expect(root.progressSnapshot().fractionCompleted == 0)
        withExtendedLifetime((old, new)) {}
    }
}
