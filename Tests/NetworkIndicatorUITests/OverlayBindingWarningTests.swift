import NetworkIndicator
import NetworkIndicatorTesting
import Testing

@testable import NetworkIndicatorUI

/// An overlay that names no manager and finds only `.shared` says so once, through the
/// diagnostics; one inside a scope, or given a manager, says nothing.
@MainActor
@Suite("Overlay bound to .shared")
struct OverlayBindingWarningTests {
    private let reports = LockedState<[NetworkIndicatorDiagnostic]>([])
    private let shared: NetworkIndicatorManager

    init() {
        let reports = reports
        shared = NetworkIndicatorManager(
            scheduler: ManualNetworkIndicatorScheduler(),
            diagnosticsHandler: { diagnostic in reports.withLock { $0.append(diagnostic) } }
        )
    }

    private var reported: [NetworkIndicatorDiagnostic] { reports.withLock { $0 } }

    @Test func anOverlayOutsideEveryScopeIsReportedOnce() {
        var warning = OverlayBindingWarning()
        warning.check(given: nil, resolved: shared, title: "Loading", shared: shared)
        warning.check(given: nil, resolved: shared, title: "Loading feed", shared: shared)
        #expect(reported.map(\.kind) == [.overlayFollowsShared], "once per process")
        #expect(reported.first?.label == "Loading")
        #expect(reported.first?.description.contains("networkActivityScope") == true)
    }

    @Test func anOverlayInAScopeOrGivenAManagerIsNotReported() {
        var warning = OverlayBindingWarning()
        let scope = NetworkIndicatorManager(parent: shared, label: "Feed")
        warning.check(given: nil, resolved: scope, title: "Loading", shared: shared)
        warning.check(given: shared, resolved: shared, title: "Loading", shared: shared)
        #expect(reported.isEmpty, "a scope's manager, or .shared said explicitly")
        #expect(!warning.hasReported)
    }
}
