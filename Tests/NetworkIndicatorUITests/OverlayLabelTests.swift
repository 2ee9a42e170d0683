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

    @Test func defaultTitleIsTranslatedFromPackageBundle() {
        #expect(OverlayLabel.bundle(forKey: "Loading") === Bundle.module)
    }

    @Test func appTitleIsLookedUpInMainBundle() {
        #expect(OverlayLabel.bundle(forKey: "Loading feed") == nil)
        #expect(OverlayLabel.bundle(forKey: "loading") == nil)
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
