import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

@MainActor
@Suite("Scope owner (the logic under networkActivityScope)")
struct NetworkActivityScopeOwnerTests {
    private let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    @Test func firstRequestMakesAChildOfTheParent() {
        let owner = NetworkActivityScopeOwner()
        let child = owner.manager(under: root, label: "Feed")
        #expect(child.parent === root)
        #expect(child !== root)
        child.pushNetworkActivity()
        #expect(root.activeTaskCount == 1)
    }

    @Test func rebuildsUnderTheSameParentGetTheSameChild() {
        let owner = NetworkActivityScopeOwner()
        let first = owner.manager(under: root, label: "Feed")
        #expect(owner.manager(under: root, label: "Feed") === first)
        // A new label alone makes no new child: the label is taken when the child is made.
        #expect(owner.manager(under: root, label: "Renamed") === first)
    }

    @Test func newParentMakesANewChildAndLetsTheOldOneGo() {
        let owner = NetworkActivityScopeOwner()
        let otherRoot = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
        weak var old: NetworkIndicatorManager?
        old = owner.manager(under: root, label: "Feed")
        old?.pushNetworkActivity()
        #expect(root.activeTaskCount == 1)

        let new = owner.manager(under: otherRoot, label: "Feed")
        #expect(new.parent === otherRoot)
        #expect(old == nil)
        #expect(root.activeTaskCount == 0)  // the old child's open task ended in its ancestors
    }

    @Test func releaseFreesTheChildAndEndsItsTasksInTheParent() {
        let owner = NetworkActivityScopeOwner()
        weak var child: NetworkIndicatorManager?
        child = owner.manager(under: root, label: "Feed")
        child?.pushNetworkActivity()
        #expect(root.activeTaskCount == 1)

        owner.release()
        #expect(child == nil)
        #expect(owner.child == nil)
        #expect(root.activeTaskCount == 0)
    }

    @Test func afterReleaseTheNextRequestMakesAFreshChild() {
        let owner = NetworkActivityScopeOwner()
        let first = owner.manager(under: root, label: "Feed")
        owner.release()
        #expect(owner.manager(under: root, label: "Feed") !== first)
    }

    @Test func droppingTheOwnerFreesTheChild() {
        var owner: NetworkActivityScopeOwner? = NetworkActivityScopeOwner()
        weak var child: NetworkIndicatorManager?
        child = owner?.manager(under: root, label: "Feed")
        child?.pushNetworkActivity()
        owner = nil
        #expect(child == nil)
        #expect(root.activeTaskCount == 0)
    }

    @Test func theOwnerDoesNotKeepTheParentAlive() {
        // The child keeps its parent alive, but only while the owner keeps the child.
        let owner = NetworkActivityScopeOwner()
        weak var parent: NetworkIndicatorManager?
        do {
            let made = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())
            parent = made
            _ = owner.manager(under: made, label: "Feed")
        }
        #expect(parent != nil)
        owner.release()
        #expect(parent == nil)
    }
}

/// Off the main actor: a view's `@State` initial value is evaluated where the view is made, which
/// the Swift 5.9 SDKs do not isolate to the main actor, so the owner's initializer must be
/// nonisolated (this test does not build otherwise).
@Test func anOwnerCanBeMadeOffTheMainActor() async {
    let owner = NetworkActivityScopeOwner()
    await MainActor.run { #expect(owner.child == nil) }
}

@MainActor
@Suite("Scope owner refreshes")
struct NetworkActivityScopeOwnerRefreshTests {
    private let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler())

    @Test func eachChildComesWithItsOwnRefreshCount() {
        let owner = NetworkActivityScopeOwner()
        #expect(owner.refreshes == nil, "no child, no refreshes")
        _ = owner.manager(under: root, label: "Feed")
        let first = owner.refreshes
        _ = owner.manager(under: root, label: "Feed")
        #expect(owner.refreshes === first, "the same child keeps its count")
        _ = owner.manager(under: NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler()), label: "Feed")
        #expect(owner.refreshes !== first, "a new child starts from none")
        owner.release()
        #expect(owner.refreshes == nil)
    }
}
