import Foundation

/// The overlays' default title, "Loading", and where its translations live.
///
/// The translations are this target's resources (`Resources/<language>.lproj/Localizable.strings`,
/// reached through the `Bundle.module` that SwiftPM generates). A title the app passes itself is
/// the app's own key, looked up in the app's main bundle like any other.
enum OverlayLabel {
    /// The default title's key in this target's `Localizable.strings`, and its English text.
    static let defaultKey = "Loading"

    /// The bundle that translates `key`: this package's resource bundle for ``defaultKey``, and
    /// `nil` (meaning the main bundle, for SwiftUI's `Text` and `NSLocalizedString` alike) for
    /// any other key, which belongs to the app.
    static func bundle(forKey key: String) -> Bundle? {
        key == defaultKey ? Bundle.module : nil
    }

    /// The default title in the app's current language, if the package has a translation for
    /// it, and in English otherwise.
    static var localizedDefault: String {
        Bundle.module.localizedString(forKey: defaultKey, value: defaultKey, table: nil)
    }
}
