import Foundation
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicator

/// Where a scope's misuse and stale-task reports go: to the handler of its own, once set, and
/// until then to its parent's as it is when the report is made, as apps set `shared`'s handler
/// at launch, sometimes after a screen's scope (a static, a view model made early) exists.
@MainActor
@Suite("A scope's diagnostics handler")
struct ScopeDiagnosticsTests {
    private let root = NetworkIndicatorManager(
        scheduler: ManualNetworkIndicatorScheduler(),
        diagnosticsHandler: ignoreDiagnostics
    )

    @Test func aScopeMadeBeforeTheAppSetItsHandlerReportsToThatHandler() {
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let row = NetworkIndicatorManager(parent: screen, label: "row")
        let logger = DiagnosticsRecorder()
        root.diagnosticsHandler = logger.handler
        screen.popNetworkActivity()
        row.popNetworkActivity()
        #expect(logger.kinds == [.popWithoutPush, .popWithoutPush], "the scope and its own scope")
    }

    @Test func aScopeWithAHandlerOfItsOwnKeepsIt() {
        let screen = NetworkIndicatorManager(parent: root, label: "screen")
        let row = NetworkIndicatorManager(parent: screen, label: "row")
        let own = DiagnosticsRecorder()
        screen.diagnosticsHandler = own.handler
        let logger = DiagnosticsRecorder()
        root.diagnosticsHandler = logger.handler
        screen.popNetworkActivity()
        row.popNetworkActivity()
        #expect(own.kinds == [.popWithoutPush, .popWithoutPush], "the row takes its parent's own handler")
        #expect(logger.kinds.isEmpty)
    }

    /// A scope's own handler, released with the scope, may hold the last reference to an object
    /// whose `deinit` reads the tree: it is let go after the tree's lock, not under it, where
    /// that read would deadlock (the lock is not recursive). On a thread of its own, so that a
    /// deadlock fails the test rather than hang the run; the root is kept for good then, since
    /// its own release would wait for the lock too, and let go once the scope's release returned.
    @Test func aScopesOwnHandlerIsReleasedAfterTheTreesLock() {
        let root = NetworkIndicatorManager(scheduler: ManualNetworkIndicatorScheduler(), diagnosticsHandler: { _ in })
        let kept = Unmanaged.passRetained(root)
        let read = LockedState<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            var scope: NetworkIndicatorManager? = NetworkIndicatorManager(parent: root, label: "screen")
            do {
                let logger = DeinitProbe {
                    let count = root.activeTaskCount
                    read.withLock { $0 = count }
                }
                scope?.diagnosticsHandler = { _ in withExtendedLifetime(logger) {} }
            }
            scope = nil
            done.signal()
        }.start()
        let returned = done.wait(timeout: .now() + 5) == .success
        #expect(returned, "the scope's release deadlocked on the tree's lock")
        #expect(read.withLock { $0 } == 0, "the logger's deinit read the root")
        if returned { kept.release() }
    }

    /// Diagnostics.swift (Kind.staleTask): "reported once per token, group or counter, at a
    /// sweep, on the main thread, to the handler of the manager that holds it."
    @Test func aScopesStuckTaskIsReportedToItsOwnHandlerNotTheApps() {
        let harness = Harness()
        harness.manager.settings.staleTaskThreshold = 5
        let feed = NetworkIndicatorManager(parent: harness.manager, label: "Feed")
        let own = DiagnosticsRecorder()
        feed.diagnosticsHandler = own.handler
        let page = feed.beganNetworkTask(label: "page")
        harness.settle()
        harness.advance(by: 6)
        #expect(own.all.map(\.label) == ["page"])
        #expect(harness.diagnostics.all.isEmpty)
        withExtendedLifetime(page) {}
    }
}

/// An object that runs `onDeinit` as it goes.
private final class DeinitProbe: Sendable {
    let onDeinit: @Sendable () -> Void

    init(_ onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
    }

    deinit {
        onDeinit()
    }
}
