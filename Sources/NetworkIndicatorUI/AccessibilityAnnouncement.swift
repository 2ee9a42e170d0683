// Apple APIs used, with the availability Apple's documentation gives:
// - UIAccessibility.post(notification:argument:) with .announcement: iOS 7.0+, tvOS 9.0+,
//   visionOS 1.0+.
// - NSAccessibility.post(element:notification:userInfo:) with .announcementRequested and the
//   .announcement and .priority keys: macOS 10.7+ (the keys 10.7+, the priority levels 10.9+).
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
/// system announces a change that has no focusable element of its own. Main actor only.
@MainActor
enum AccessibilityAnnouncement {
    static func post(_ text: String) {
        #if canImport(UIKit) && !os(watchOS)
        UIAccessibility.post(notification: .announcement, argument: text)
        #elseif canImport(AppKit)
        NSAccessibility.post(
            element: NSApplication.shared,
            notification: .announcementRequested,
            userInfo: [.announcement: text, .priority: NSAccessibilityPriorityLevel.high.rawValue]
        )
        #endif
    }
}
#endif
