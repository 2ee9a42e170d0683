// Apple APIs used, with the availability Apple's documentation gives:
// - View.task(priority:_:), View.task(id:priority:_:): iOS 15.0+, macOS 12.0+, tvOS 15.0+,
//   watchOS 8.0+; hence the availability below.
// - Environment, ViewModifier: iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
import NetworkIndicator
public import SwiftUI

@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
extension View {
    /// SwiftUI's `task(priority:_:)`, counted as one network task in the environment's
    /// manager (``SwiftUI/EnvironmentValues/networkIndicator``) from its start until `action`
    /// returns or the view goes away.
    ///
    /// ```swift
    /// List(posts) { PostRow(post: $0) }
    ///     .networkActivityTask(label: "posts") { await model.load() }
    /// ```
    ///
    /// As with `task`, `action` starts before the view appears and is cancelled when it
    /// disappears; the task ends in the manager at the cancellation, even if `action` keeps
    /// running. It counts in the manager the environment held when it started.
    ///
    /// - Parameters:
    ///   - label: A name for `NetworkIndicatorManager.activitySnapshot()` and diagnostics; by
    ///     default the task is named by where this modifier is written.
    ///   - priority: The priority of the task.
    ///   - file: Where the modifier is written, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    ///   - action: The network work; it runs on the main actor, as a view's `task` does.
    @MainActor
    public func networkActivityTask(
        label: String? = nil,
        priority: TaskPriority = .userInitiated,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ action: @escaping @MainActor @Sendable () async -> Void
    ) -> some View {
        modifier(
            NetworkActivityTaskModifier(id: 0, label: label, priority: priority, file: file, line: line, action: action)
        )
    }

    /// SwiftUI's `task(id:priority:_:)`, counted as one network task in the environment's
    /// manager: started when the view appears and again (after cancelling the running one)
    /// each time `id` changes.
    ///
    /// ```swift
    /// PostDetail(post: post)
    ///     .networkActivityTask(id: post.id, label: "comments") { await model.loadComments(post.id) }
    /// ```
    ///
    /// Each run counts from its start until `action` returns or is cancelled (when the view
    /// disappears or `id` changes).
    ///
    /// - Parameters:
    ///   - id: The value whose change restarts the task.
    ///   - label: A name for `NetworkIndicatorManager.activitySnapshot()` and diagnostics; by
    ///     default the task is named by where this modifier is written.
    ///   - priority: The priority of the task.
    ///   - file: Where the modifier is written, for snapshots and diagnostics: leave the default,
    ///     the caller's `#fileID`.
    ///   - line: The line of `file`; leave the default, `#line`.
    ///   - action: The network work; it runs on the main actor, as a view's `task` does.
    @MainActor
    public func networkActivityTask<ID: Equatable>(
        id: ID,
        label: String? = nil,
        priority: TaskPriority = .userInitiated,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ action: @escaping @MainActor @Sendable () async -> Void
    ) -> some View {
        modifier(
            NetworkActivityTaskModifier(
                id: id,
                label: label,
                priority: priority,
                file: file,
                line: line,
                action: action
            )
        )
    }
}

/// Runs the action in SwiftUI's task, as one network task of the environment's manager.
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
@MainActor
private struct NetworkActivityTaskModifier<ID: Equatable>: ViewModifier {
    let id: ID
    let label: String?
    let priority: TaskPriority
    let file: StaticString
    let line: UInt
    let action: @MainActor @Sendable () async -> Void
    @Environment(\.networkIndicator) private var manager

    func body(content: Content) -> some View {
        content.task(id: id, priority: priority) { [manager, label, file, line, action] in
            await manager.withNetworkActivity(label: label, file: file, line: line) { await action() }
        }
    }
}
#endif
