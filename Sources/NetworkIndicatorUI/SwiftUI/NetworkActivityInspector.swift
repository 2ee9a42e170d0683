// Apple APIs used, with the availability Apple's documentation gives:
// - TimelineView with .periodic(from:by:): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 8.0+.
// - List, Section, Text, ScrollView, the .monospaced font design (Font.system(_:design:)):
//   iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
#if canImport(SwiftUI)
public import NetworkIndicator
public import SwiftUI

/// A live list of what keeps the spinner on, for debug builds: the manager's open tasks by
/// scope, with their ages counting up and where each began, and the last 20 tasks to end, with
/// their durations and how they ended.
///
/// ```swift
/// #if DEBUG
/// .sheet(isPresented: $showsInspector) { NetworkActivityInspector() }
/// #endif
/// ```
///
/// It reads `NetworkIndicatorManager.activitySnapshot()` once a second and
/// hears the tasks that end while it is on screen (through a
/// `NetworkActivityTaskEventOutput` attached to the manager until it
/// disappears). Attached to the app's manager it lists every scope's tasks. It decides nothing:
/// what it lists is the tested `NetworkActivityInspectorModel`. Keep it out of release builds.
@available(iOS 15, macOS 12, tvOS 15, watchOS 8, *)
@MainActor
public struct NetworkActivityInspector: View {
    @State private var model: NetworkActivityInspectorModel

    /// An inspector of `manager`'s tasks and its scopes'; `.shared` by default.
    public init(manager: NetworkIndicatorManager = .shared) {
        _model = State(initialValue: NetworkActivityInspectorModel(manager: manager))
    }

    /// The two lists, refreshed once a second.
    public var body: some View {
        TimelineView(.periodic(from: .now, by: 1)) { _ in
            List {
                Section("Open") {
                    ForEach(Array(model.openLines().enumerated()), id: \.offset) { Self.line($0.element) }
                }
                Section("Ended") {
                    ForEach(Array(model.endedLines.enumerated()), id: \.offset) { Self.line($0.element) }
                }
            }
        }
        .onAppear { model.attach() }
        .onDisappear { model.detach() }
    }

    private static func line(_ text: String) -> some View {
        Text(verbatim: text).font(.system(.footnote, design: .monospaced))
    }
}
#endif
