// Apple APIs used, with the availability Apple's documentation gives:
// - Material (.regularMaterial): iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 10.0+; hence the
//   availability below.
// - View.overlay(alignment:content:), View.background(_:in:fillStyle:), View.task(id:_:):
//   iOS 15.0+, macOS 12.0+, tvOS 15.0+, watchOS 8.0+.
// - ProgressView.init(label:), ProgressView.init(value:total:label:currentValueLabel:),
//   View.accessibilityValue(_:): iOS 14.0+, macOS 11.0+, tvOS 14.0+, watchOS 7.0+.
// - EnvironmentKey, EnvironmentValues, View.environment(_:_:), View.frame(minWidth:):
//   iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
// - StateObject, ObservableObject, Published: iOS 14.0+ (StateObject), 13.0+ (the others).
// - View.disabled(_:), View.accessibilityHidden(_:): iOS 13.0+ / 14.0+, macOS 10.15+ / 11.0+;
//   View.background(_:alignment:): iOS 13.0+, macOS 10.15+, tvOS 13.0+, watchOS 6.0+.
// - The probe behind the content, which says whether a sheet covers the overlay:
//   OverlaySight+Views.swift.
// - View.accessibilityElement(children:), accessibilityLabel(_:) and accessibilityAddTraits(_:)
//   with .updatesFrequently: iOS 14.0+, macOS 11.0+, tvOS 14.0+, watchOS 7.0+.
// - Text.init(_:tableName:bundle:comment:) with a LocalizedStringKey: iOS 13.0+, macOS 10.15+,
//   tvOS 13.0+, watchOS 6.0+.
// - Text.init(verbatim:), RoundedRectangle, ZStack, View.transition(_:), animation(_:value:),
//   allowsHitTesting(_:), onDisappear(perform:): iOS 13.0+, macOS 10.15+, tvOS 13.0+,
//   watchOS 6.0+.
#if canImport(SwiftUI)
import NetworkIndicator
import Combine
import SwiftUI

/// The shell of every manager-driven SwiftUI overlay: an ``NetworkActivityOverlayController``
/// started from the manager's state when the view appears (and again if the manager changes),
/// reset when it disappears, whose drawn state shows `overlay` over the content.
///
/// The animation applies to the overlay only, never to the content under it. The overlay
/// takes no touches unless the settings' `interaction` says so: `.blocksCard` on the card,
/// `.blocksHost` everywhere over the content (a clear, hit-testable cover).
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
@MainActor
struct NetworkActivityOverlayShell<Overlay: View>: ViewModifier {
    let manager: NetworkIndicatorManager
    /// The overlay's own settings, or `nil` for its scope's (or the defaults).
    let settings: NetworkActivityOverlaySettings?
    /// What VoiceOver hears when the overlay draws.
    let spokenTitle: String
    let overlay: Overlay
    /// The title the light indicator shows, translated in the environment's `\.locale`; `nil`
    /// for `spokenTitle` as it is (an overlay of the caller's own content).
    var shownTitle: Text? = nil
    @Environment(\.networkActivityScopeContext) private var scope
    @Environment(\.networkActivityOverlayHasContent) private var hasContent
    @StateObject private var state = OverlayViewState()

    func body(content: Content) -> some View {
        let settings = NetworkActivityScopeContext.overlaySettings(in: scope, of: manager, given: settings)
        let scope = scope?.scope(of: manager)
        let plan = state.plan
        return
            content
            .environment(\.networkActivityOverlayHasContent, false)
            // A blocking card: no touch, key, VoiceOver or Switch Control activation reaches
            // the content, which VoiceOver skips; only the card is left to read.
            .disabled(!plan.hostTakesInput)
            .accessibilityHidden(plan.hidesHostFromAccessibility)
            .overlay(alignment: .top) {
                ZStack {
                    if plan.showsLightIndicator {
                        NetworkActivityOverlayCapsule(
                            title: OverlayStillLoading.shownTitle(
                                replacing: shownTitle ?? Text(verbatim: plan.title),
                                isStillLoading: plan.isStillLoading
                            ),
                            progress: plan.progress
                        )
                        .allowsHitTesting(false)
                        .transition(.opacity)
                    }
                }
                .animation(.easeInOut(duration: plan.fadeDuration), value: plan.showsLightIndicator)
            }
            .overlay {
                ZStack {
                    // Over the whole content: the frontmost hit-testable view takes the touch.
                    Color.clear.contentShape(Rectangle()).accessibilityHidden(true)
                        .allowsHitTesting(plan.showsCover)
                    if plan.showsCard {
                        overlay
                            .environment(\.networkActivityOverlayProgress, plan.progress)
                            .environment(\.networkActivityOverlayStillLoading, plan.isStillLoading)
                            .allowsHitTesting(plan.cardTakesInput)
                            .transition(.opacity)
                    }
                }
                .animation(.easeInOut(duration: plan.fadeDuration), value: plan.showsCard)
            }
            .background(OverlayViewProbeView(probe: state.probe))
            .task(id: hasContent) { state.hasContent = hasContent }
            .task(id: spokenTitle) { state.title = spokenTitle }
            .task(
                id: OverlayShellConfiguration(
                    manager: manager,
                    settings: settings,
                    refreshes: scope?.refreshes,
                    parentRefreshes: scope?.parentRefreshes
                )
            ) {
                // A task cancelled (by `onDisappear`, or a new configuration) before its body starts
                // still runs it: without this the overlay would start after its view has gone.
                guard !Task.isCancelled else { return }
                state.appear(
                    manager: manager,
                    refreshes: scope?.refreshes,
                    coveringIn: scope?.parentRefreshes,
                    settings: settings,
                    title: spokenTitle
                )
            }
            .onDisappear { state.disappear() }
    }
}

/// The overlay's controller and the plan it last told, kept by the view for as long as it is
/// shown.
@MainActor
final class OverlayViewState: ObservableObject {
    /// What the shell draws: the controller's plan (``OverlayPlan``).
    @Published private(set) var plan = OverlayPlan.hidden
    /// Whether the screen shows content, for the controller's style decision.
    var hasContent = false {
        didSet { controller?.hasContent = hasContent }
    }
    /// The overlay's title, changed in place (the controller keeps running).
    var title = "" {
        didSet { controller?.title = title }
    }
    /// Where the overlay is drawn, read when it would speak.
    let probe = OverlayViewProbe()
    private var controller: NetworkActivityOverlayController?

    /// Whether the user can see the overlay now: its view in a window, under no sheet or
    /// full-screen cover, its scene not in the background (``OverlaySight``), as UIKit or AppKit
    /// tell of the view behind the overlay (UIKit's scene state is what SwiftUI's `scenePhase`
    /// reports).
    var sight: OverlaySight { probe.sight }

    // Nonisolated: a `@StateObject`'s initial value is made where the view is made, which the
    // older SDKs do not isolate to the main actor.
    nonisolated init() {}

    /// Starts following `manager` from its state now, with a new controller for `settings`.
    func appear(
        manager: NetworkIndicatorManager,
        refreshes: ScopeOverlayExclusions?,
        coveringIn parentRefreshes: ScopeOverlayExclusions?,
        settings: NetworkActivityOverlaySettings,
        title: String
    ) {
        controller?.disappear()
        let controller = NetworkActivityOverlayController(
            settings: settings,
            // Asked at each announcement: a view under a sheet stays between onAppear and
            // onDisappear, but the user cannot see it.
            accessibility: .system(
                isSeen: { [weak self] in self?.sight.isSeen ?? false },
                title: { [weak self] in self?.plan.title ?? "" }
            )
        )
        controller.planChanged = { [weak self] in self?.plan = $0 }
        controller.title = title
        controller.hasContent = hasContent
        self.title = title
        self.controller = controller
        controller.appear(manager: manager, refreshes: refreshes, coveringIn: parentRefreshes)
    }

    /// Erases at once and stops following the manager.
    func disappear() {
        controller?.disappear()
        controller = nil
        plan = .hidden
    }
}

/// The package's overlay: a spinner and its title on a rounded material, or, when the
/// environment's ``OverlayProgress`` is determinate, a bar with the percentage under it.
/// VoiceOver reads it as one element: its title, and the percentage as its value.
@available(iOS 15, macOS 12, tvOS 15, watchOS 10, *)
struct NetworkActivityOverlayCard: View {
    let title: Text
    @Environment(\.networkActivityOverlayProgress) private var progress
    @Environment(\.networkActivityOverlayStillLoading) private var isStillLoading

    /// The title shown and read: "Still loading…" once the controller says so.
    private var shownTitle: Text {
        OverlayStillLoading.shownTitle(replacing: title, isStillLoading: isStillLoading)
    }

    var body: some View {
        Group {
            if let fraction = progress.fractionCompleted {
                ProgressView(value: fraction) {
                    shownTitle
                } currentValueLabel: {
                    Text(verbatim: progress.percentageText() ?? "")
                }
                .frame(minWidth: 160)
            } else {
                ProgressView {
                    shownTitle
                }
            }
        }
        .padding()
        .background(.regularMaterial, in: RoundedRectangle(cornerRadius: 12, style: .continuous))
        .accessibilityElement(children: .ignore)
        .accessibilityLabel(shownTitle)
        .accessibilityValue(Text(verbatim: progress.accessibilityValue() ?? ""))
        .accessibilityAddTraits(.updatesFrequently)
    }
}

extension OverlayLabel {
    /// The title as SwiftUI shows it: the same key, table and bundle, translated in the
    /// environment's `\.locale` (``text(appBundle:)`` translates in the app's language, for
    /// VoiceOver's announcement).
    var shownText: Text {
        Text(LocalizedStringKey(key), tableName: tableName, bundle: bundle())
    }
}

extension OverlayStillLoading {
    /// "Still loading…" as SwiftUI shows it, in the environment's `\.locale`, while
    /// `isStillLoading`; `title` otherwise.
    static func shownTitle(replacing title: Text, isStillLoading: Bool) -> Text {
        guard isStillLoading else { return title }
        return Text(LocalizedStringKey(titleKey), bundle: .module)
    }
}

/// What the package's overlay card shows: set by the overlay shells from their controller (or
/// the model's fraction), read by ``NetworkActivityOverlayCard``.
private struct NetworkActivityOverlayProgressKey: EnvironmentKey {
    static let defaultValue = OverlayProgress.indeterminate
}

extension EnvironmentValues {
    /// The progress the package's overlay card shows; the spinner unless an overlay shell says.
    var networkActivityOverlayProgress: OverlayProgress {
        get { self[NetworkActivityOverlayProgressKey.self] }
        set { self[NetworkActivityOverlayProgressKey.self] = newValue }
    }
}
#endif
