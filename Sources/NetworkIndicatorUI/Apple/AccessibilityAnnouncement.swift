// Apple APIs used, with the availability Apple's documentation gives:
// - UIAccessibility.post(notification:argument:) with .announcement: iOS 7.0+, tvOS 9.0+,
//   visionOS 1.0+; NSAttributedString.Key.accessibilitySpeechQueueAnnouncement: iOS 11.0+,
//   tvOS 11.0+; UIAccessibility.isVoiceOverRunning: iOS 11.0+, tvOS 11.0+.
// - NSAccessibility.post(element:notification:userInfo:) with .announcementRequested and the
//   .announcement and .priority keys: macOS 10.7+ (the priority levels 10.9+);
//   NSWorkspace.isVoiceOverEnabled: macOS 10.13+.
// Nothing is posted on watchOS, which has neither.
#if canImport(SwiftUI)
#if canImport(UIKit) && !os(watchOS)
// Up to the iOS 17 SDK, UIKit declares its accessibility notification names as mutable C
// globals, which Swift 6 would refuse to read; `@preconcurrency` accepts them, in this file only.
@preconcurrency import UIKit
#elseif canImport(AppKit)
import AppKit
#endif

/// Tells VoiceOver (and other assistive technologies) `text` as an announcement, the way the
/// system announces a change that has no focusable element of its own, queued behind what it
/// is saying rather than interrupting it. Main actor only.
///
/// Whether to post at all is ``OverlayAnnouncement``'s decision; the overlays ask it first.
@MainActor
enum AccessibilityAnnouncement {
    /// Whether VoiceOver is running now (always `false` on watchOS).
    static var isVoiceOverRunning: Bool {
        #if canImport(UIKit) && !os(watchOS)
        UIAccessibility.isVoiceOverRunning
        #elseif canImport(AppKit)
        NSWorkspace.shared.isVoiceOverEnabled
        #else
        false
        #endif
    }

    /// Posts `text`, queued behind current speech.
    static func post(_ text: String) {
        #if canImport(UIKit) && !os(watchOS)
        let queued = NSAttributedString(
            string: text,
            attributes: [.accessibilitySpeechQueueAnnouncement: true]
        )
        UIAccessibility.post(notification: .announcement, argument: queued)
        #elseif canImport(AppKit)
        // Medium: spoken after the current speech; high would interrupt it.
        NSAccessibility.post(
            element: NSApplication.shared,
            notification: .announcementRequested,
            userInfo: [.announcement: text, .priority: NSAccessibilityPriorityLevel.medium.rawValue]
        )
        #endif
    }

    #if canImport(UIKit) && !os(watchOS)
    /// `UIAccessibilityTraits.updatesFrequently`, read here, where UIKit's mutable C globals
    /// are imported `@preconcurrency`, for the UIKit overlay view.
    static var updatesFrequentlyTrait: UIAccessibilityTraits { .updatesFrequently }

    /// The element VoiceOver's cursor is on, if VoiceOver runs and it is an object.
    static var voiceOverCursor: NSObject? {
        UIAccessibility.focusedElement(using: .notificationVoiceOver) as? NSObject
    }

    /// Moves VoiceOver's cursor to `card`, which is now all it reaches: a screen change.
    static func moveCursor(toCard card: UIView) {
        UIAccessibility.post(notification: .screenChanged, argument: card)
    }

    /// Moves VoiceOver's cursor back to `element`, if any, once the content is reachable again:
    /// a layout change, so that VoiceOver reads it where it was rather than from the top.
    static func moveCursor(backTo element: NSObject?) {
        _ = element.map { UIAccessibility.post(notification: .layoutChanged, argument: $0) }
    }
    #endif

    /// Posts what ``OverlayAnnouncement/text(for:title:progress:bundle:)`` says for `kind`.
    static func post(_ kind: OverlayAnnouncement.Kind, title: String, progress: OverlayProgress) {
        post(OverlayAnnouncement.text(for: kind, title: title, progress: progress))
    }
}

extension NetworkActivityOverlayController.Accessibility {
    /// The system's assistive technologies, for an overlay that the user sees while `isSeen`
    /// says so and is titled what `title` returns, both read at the moment of an announcement.
    /// `focusesBlockingCard`: the shell moves VoiceOver's cursor to a blocking card (UIKit).
    static func system(
        isSeen: @escaping @MainActor () -> Bool,
        title: @escaping @MainActor () -> String,
        focusesBlockingCard: Bool = false
    ) -> Self {
        Self(
            isSeen: isSeen,
            isVoiceOverRunning: { AccessibilityAnnouncement.isVoiceOverRunning },
            post: { kind, progress in AccessibilityAnnouncement.post(kind, title: title(), progress: progress) },
            focusesBlockingCard: focusesBlockingCard
        )
    }
}
#endif
