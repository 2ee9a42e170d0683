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
}
