// Apple APIs used, with the availability Apple's documentation gives:
// - View.refreshable(action:): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 8.0+; hence the
//   availability below.
// - Environment, ViewModifier: iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
extension View {
    /// SwiftUI's `refreshable(action:)`, with each refresh counted as one network task in the
    /// environment's manager (the nearest `networkActivityScope`, so its ancestors and the
    /// app-wide indicator count it too), and left out of that scope's overlay.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityRefreshable(label: "refresh") { await model.reload() }
    ///     .networkActivityOverlay()
    ///     .networkActivityScope("Feed")
    /// ```
    ///
    /// On iOS, iPadOS and visionOS the system's refresh control already shows a spinner while `action`
    /// runs, so the scope's `networkActivityOverlay` begins to draw for nothing while a refresh
    /// runs, neither for the refresh nor for the requests its action makes (it draws, after its
    /// show delay, for what still loads when the refresh ends). On macOS (Mac Catalyst too), tvOS and watchOS
    /// nothing spins for a refresh, which a button or a menu starts, so the overlay draws for it
    /// as for any load. Write it inside the scope, as above: written below
    /// `networkActivityScope`, or in the view that declares the scope, it counts in the parent.
    /// The task ends when `action` returns, or when the refresh is cancelled.
    ///
    /// - Parameters:
    ///   - label: A name for `NetworkIndicatorManager.activitySnapshot()` and diagnostics; by
    ///     default each refresh is named by where this modifier is written.
    ///   - file: Where the modifier is written, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    ///   - action: The refresh; it runs on the main actor, as the view's other tasks do.
    @MainActor
    public func networkActivityRefreshable(
        label: String? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ action: @escaping @MainActor @Sendable () async -> Void
    ) -> some View {
        modifier(NetworkActivityRefreshableModifier(label: label, file: file, line: line, action: action))
    }
}

/// Installs `refreshable`, counting each refresh in the environment's manager and, inside a
/// scope, in the scope's refresh count.
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
@MainActor
private struct NetworkActivityRefreshableModifier: ViewModifier {
    let label: String?
    let file: StaticString
    let line: UInt
    let action: @MainActor @Sendable () async -> Void
    @Environment(\.networkIndicator) private var manager
    @Environment(\.networkActivityScopeContext) private var scope

    func body(content: Content) -> some View {
        let refreshes = scope?.refreshesToLeaveOut(of: manager)
        return content.refreshable { @MainActor [manager, label, file, line, action] in
            await RefreshActivity.run(in: manager, label: label, refreshes: refreshes, file: file, line: line) {
                await action()
            }
        }
    }
}
#endif
