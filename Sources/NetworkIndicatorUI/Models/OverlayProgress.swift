import Foundation
import NetworkIndicator

/// What an overlay shows of how far its screen's load is: a determinate bar with a percentage
/// when the manager knows a fraction, the indeterminate spinner otherwise. Plain Swift, so the
/// text VoiceOver reads and the percentage shown are tested on Linux; the SwiftUI, UIKit and
/// AppKit overlays only draw it.
///
/// The percentage is rounded down, as the terminal spinner's is, so that 100 % means done; a
/// hair of tolerance keeps a fraction such as 0.29 (28.999… × 100 in binary) at 29 %. The
/// texts come from this target's `Localizable.strings` with format keys, and numbers are
/// written with plain digits, so the result depends only on the bundle.
struct OverlayProgress: Equatable, Sendable {
    /// The format of the percentage shown beside the bar ("40%"), in this target's strings.
    static let percentageKey = "Progress percentage format"
    /// The format of the accessibility value ("40 percent").
    static let accessibilityValueKey = "Progress accessibility value format"
    /// The format of what VoiceOver announces when a determinate overlay draws
    /// ("Loading, 40 percent").
    static let announcementKey = "Progress announcement format"

    /// The spinner: no fraction known.
    static let indeterminate = OverlayProgress(fractionCompleted: nil)

    /// The fraction shown, between 0 and 1; `nil` for the spinner.
    let fractionCompleted: Double?

    /// `fraction` clamped to 0...1; `nil` (or not a number) for the spinner.
    init(fractionCompleted fraction: Double?) {
        guard let fraction, !fraction.isNaN else {
            self.fractionCompleted = nil
            return
        }
        self.fractionCompleted = min(max(fraction, 0), 1)
    }

    /// Whether the overlay shows a bar rather than the spinner.
    var isDeterminate: Bool { fractionCompleted != nil }

    /// Whether a spinner showing this should turn: only while it is what the overlay shows, the
    /// overlay is not hidden, and it is in a window (a detached spinner that turns costs the
    /// main thread for nobody).
    func spinnerAnimates(isHidden: Bool, isInWindow: Bool) -> Bool {
        !isDeterminate && !isHidden && isInWindow
    }

    /// The whole percentage, rounded down; `nil` for the spinner.
    var percent: Int? {
        wholePercent(of: fractionCompleted)
    }

    /// "40%" in the language of `bundle` (this target's by default); `nil` for the spinner.
    func percentageText(bundle: Bundle = .module) -> String? {
        percent.map { Self.format(Self.percentageKey, english: "%ld%%", bundle: bundle, $0) }
    }

    /// "40 percent", the accessibility value of a determinate overlay; `nil` for the spinner.
    func accessibilityValue(bundle: Bundle = .module) -> String? {
        percent.map { Self.format(Self.accessibilityValueKey, english: "%ld percent", bundle: bundle, $0) }
    }

    /// What VoiceOver announces when the overlay draws: "Loading, 40 percent" when a fraction
    /// is known, else `title` alone.
    func spokenText(title: String, bundle: Bundle = .module) -> String {
        guard let percent else { return title }
        let format = bundle.localizedString(forKey: Self.announcementKey, value: "%1$@, %2$ld percent", table: nil)
        return String(format: format, locale: nil, title, percent)
    }

    /// `key`'s format in `bundle` (the English one where `bundle` has none), filled in.
    private static func format(_ key: String, english: String, bundle: Bundle, _ percent: Int) -> String {
        let format = bundle.localizedString(forKey: key, value: english, table: nil)
        return String(format: format, locale: nil, percent)
    }
}
