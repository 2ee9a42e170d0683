import Foundation

/// An overlay's title: "Loading" from this package's translations when the caller passed no
/// title, or the caller's own key, looked up in the bundle the caller named (the app's main
/// bundle by default).
///
/// Which bundle translates a title depends only on whether the caller passed one, never on its
/// text: an app whose own `Localizable.strings` has a "Loading" key gets its own translation.
/// The translations of the default are this target's resources
/// (`Resources/<language>.lproj/Localizable.strings`, reached through the `Bundle.module` that
/// SwiftPM generates).
///
/// Not `Sendable`: `Bundle` is not, in the older SDKs; titles live with their views.
struct OverlayLabel: Equatable {
    /// The default title's key in this target's `Localizable.strings`, and its English text.
    static let defaultKey = "Loading"

    /// The key of "Loading complete", announced at the end of a long load, in this target's
    /// `Localizable.strings`.
    static let completionKey = "Loading complete"

    /// The key the caller passed, or `nil` for the default title.
    let customKey: String?

    /// The bundle the caller named for `customKey`, or `nil` for the app's main bundle.
    let customBundle: Bundle?

    /// The strings table the caller named for `customKey`, or `nil` for `Localizable`.
    let tableName: String?

    /// A title for `customKey` in `tableName` of `bundle` (the main bundle's `Localizable` if
    /// `nil`), or the default title if `customKey` is `nil` (which ignores both).
    init(_ customKey: String?, tableName: String? = nil, bundle: Bundle? = nil) {
        self.customKey = customKey
        self.tableName = customKey == nil ? nil : tableName
        self.customBundle = bundle
    }

    /// The key to look up.
    var key: String { customKey ?? Self.defaultKey }

    /// The bundle that translates ``key``: this package's for the default title; for a key the
    /// caller passed, the bundle the caller named, or else `appBundle` (the app's main bundle
    /// unless a test says otherwise).
    func bundle(appBundle: Bundle = .main) -> Bundle {
        customKey == nil ? .module : customBundle ?? appBundle
    }

    /// The title in the user's language, or the key itself where the bundle has no translation
    /// (as `NSLocalizedString` and SwiftUI's `Text` do).
    func text(appBundle: Bundle = .main) -> String {
        bundle(appBundle: appBundle).localizedString(forKey: key, value: key, table: tableName)
    }
}
