import Foundation
import Testing

@testable import NetworkIndicatorUI

@Suite("Overlay label")
struct OverlayLabelTests {
    /// The package's "Loading" translations, read from the resource bundle's `.lproj` folders.
    private static func translation(_ localization: String) throws -> String? {
        let url = try #require(
            Bundle.module.url(
                forResource: "Localizable",
                withExtension: "strings",
                subdirectory: nil,
                localization: localization
            ),
            "no Localizable.strings for \(localization)"
        )
        let table = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
        return (table as? [String: String])?[OverlayLabel.defaultKey]
    }

    /// A bundle standing in for an app's main bundle: the package's German translations.
    private static func germanBundle() throws -> Bundle {
        let url = try #require(Bundle.module.url(forResource: "de", withExtension: "lproj"))
        return try #require(Bundle(url: url))
    }

    @Test func noTitleIsTheDefaultKeyTranslatedFromPackageBundle() throws {
        let label = OverlayLabel(nil)
        #expect(label.key == "Loading")
        #expect(label.bundle(appBundle: try Self.germanBundle()) === Bundle.module)
    }

    @Test func appTitleIsLookedUpInAppBundle() throws {
        let app = try Self.germanBundle()
        #expect(OverlayLabel("Loading feed").bundle(appBundle: app) === app)
        #expect(OverlayLabel("Loading feed").key == "Loading feed")
    }

    @Test func appTitleEqualToDefaultKeyIsStillTheAppsOwn() throws {
        // The app's own "Loading" key: its bundle decides, not the package's translations.
        let app = try Self.germanBundle()
        #expect(OverlayLabel("Loading").bundle(appBundle: app) === app)
        #expect(OverlayLabel("Loading").text(appBundle: app) == "Wird geladen")
    }

    @Test func aTableGoesWithTheCallersKeyOnly() throws {
        // SwiftUI shows the title from the same key, table and bundle (`shownText`).
        let german = try Self.germanBundle()
        #expect(OverlayLabel("Loading feed", tableName: "Feed", bundle: german).tableName == "Feed")
        #expect(OverlayLabel(nil, tableName: "Feed", bundle: german).tableName == nil, "the package's own table")
        #expect(OverlayLabel("Loading", tableName: "Feed", bundle: german).text() == "Loading", "no Feed.strings")
    }

    @Test func appTitleWithoutTranslationIsShownAsItIs() throws {
        #expect(OverlayLabel("Fetching posts").text(appBundle: try Self.germanBundle()) == "Fetching posts")
    }

    @Test func defaultTitleIgnoresTheAppBundle() throws {
        // The package's base translation (English here), whatever the app's bundle holds.
        let text = OverlayLabel(nil).text(appBundle: try Self.germanBundle())
        #expect(text == Bundle.module.localizedString(forKey: "Loading", value: nil, table: nil))
    }

    @Test func englishTitleIsTheKey() throws {
        #expect(try Self.translation("en") == "Loading")
    }

    @Test(arguments: [
        ("de", "Wird geladen"),
        ("fr", "Chargement"),
        ("es", "Cargando"),
        ("ja", "読み込み中"),
    ])
    func titleIsTranslated(localization: String, expected: String) throws {
        #expect(try Self.translation(localization) == expected)
    }

    @Test func resourceBundleDeclaresEveryLocalization() {
        let localizations = Set(Bundle.module.localizations)
        #expect(localizations.isSuperset(of: ["en", "de", "fr", "es", "ja"]))
    }

    @Test func foundationLooksUpTranslationInLanguageFolder() throws {
        // What `NSLocalizedString` and SwiftUI do for a German user, through Foundation itself.
        let url = try #require(Bundle.module.url(forResource: "de", withExtension: "lproj"))
        let german = try #require(Bundle(url: url))
        #expect(german.localizedString(forKey: "Loading", value: nil, table: nil) == "Wird geladen")
    }
}

@Suite("Overlay label bundles")
struct OverlayLabelBundleTests {
    private static func germanBundle() throws -> Bundle {
        let url = try #require(Bundle.module.url(forResource: "de", withExtension: "lproj"))
        return try #require(Bundle(url: url))
    }

    @Test func aKeyIsLookedUpInTheBundleTheCallerNamed() throws {
        let named = try Self.germanBundle()
        let label = OverlayLabel("Loading", bundle: named)
        #expect(label.bundle(appBundle: .main) === named)
        #expect(label.text() == "Wird geladen")
    }

    @Test func theDefaultTitleIgnoresTheBundle() throws {
        let label = OverlayLabel(nil, bundle: try Self.germanBundle())
        #expect(label.bundle() === Bundle.module)
    }

    @Test func theCompletionAnnouncementHasATranslationInEveryLanguage() throws {
        for localization in ["en", "de", "fr", "es", "ja"] {
            let url = try #require(Bundle.module.url(forResource: localization, withExtension: "lproj"))
            let bundle = try #require(Bundle(url: url))
            let text = bundle.localizedString(forKey: OverlayLabel.completionKey, value: nil, table: nil)
            #expect(text != OverlayLabel.completionKey || localization == "en", "\(localization)")
            #expect(!text.isEmpty)
        }
    }
}
