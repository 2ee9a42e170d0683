import Foundation

/// An overlay's title: "Loading" from this package's translations when the caller passed no
/// title, or the caller's own key, looked up in the app's bundle.
///
/// Which bundle translates a title depends only on whether the caller passed one, never on its
/// text: an app whose own `Localizable.strings` has a "Loading" key gets its own translation.
/// The translations of the default are this target's resources
/// (`Resources/<language>.lproj/Localizable.strings`, reached through the `Bundle.module` that
/// SwiftPM generates).
struct OverlayLabel: Equatable, Sendable {
    /// The default title's key in this target's `Localizable.strings`, and its English text.
    static let defaultKey = "Loading"

    /// The key the caller passed, or `nil` for the default title.
    let customKey: String?

    /// A title for `customKey`, or the default title if it is `nil`.
    init(_ customKey: String?) {
        self.customKey = customKey
    }

    /// The key to look up.
    var key: String { customKey ?? Self.defaultKey }

    /// The bundle that translates ``key``: this package's for the default title, `appBundle`
    /// (the app's main bundle unless a test says otherwise) for a key the caller passed.
    func bundle(appBundle: Bundle = .main) -> Bundle {
        customKey == nil ? .module : appBundle
    }

    /// The title in the user's language, or the key itself where the bundle has no translation
    /// (as `NSLocalizedString` and SwiftUI's `Text` do).
    func text(appBundle: Bundle = .main) -> String {
        bundle(appBundle: appBundle).localizedString(forKey: key, value: key, table: nil)
    }
}
