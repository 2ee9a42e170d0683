import NetworkIndicator

/// The warning for a SwiftUI overlay that follows `.shared` without saying so: given no manager,
/// outside every `networkActivityScope` (or written below the modifier that declares one), it
/// finds `.shared` in the environment and shows every load of the app, which is rarely what a
/// screen's overlay means. Reported once per process, in debug builds, as
/// `NetworkIndicatorDiagnostic.Kind.overlayFollowsShared` to `.shared`'s diagnostics handler.
/// Plain Swift, so that the rule is tested on Linux; the shell only calls ``checkInDebugBuilds(given:resolved:title:)``.
///
/// Main actor only, as the views that call it.
@MainActor
struct OverlayBindingWarning {
    /// Whether this warning was given already.
    private(set) var hasReported = false

    /// The process's warning, given at most once.
    static var process = OverlayBindingWarning()

    /// Reports `.overlayFollowsShared` to `resolved` if the overlay was given no manager
    /// (`given` is `nil`), resolved `shared`, and nothing was reported yet. An overlay given
    /// `.shared` explicitly means it and is never reported.
    mutating func check(
        given: NetworkIndicatorManager?,
        resolved: NetworkIndicatorManager,
        title: String,
        shared: NetworkIndicatorManager = .shared
    ) {
        guard given == nil, resolved === shared, !hasReported else { return }
        hasReported = true
        resolved.report(.overlayFollowsShared, label: title)
    }

    /// ``check(given:resolved:title:shared:)`` on the process's warning, in debug builds; nothing
    /// in release builds.
    static func checkInDebugBuilds(given: NetworkIndicatorManager?, resolved: NetworkIndicatorManager, title: String) {
        #if DEBUG
        process.check(given: given, resolved: resolved, title: title)
        #endif
    }
}
