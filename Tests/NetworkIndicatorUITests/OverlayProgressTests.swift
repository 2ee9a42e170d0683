import Foundation
import Testing

@testable import NetworkIndicatorUI

/// What an overlay shows of a fraction, and the words for it, from the package's translations.
@Suite("Overlay progress")
struct OverlayProgressTests {
    /// The package's translations for `language`, as a bundle.
    private static func bundle(_ language: String) throws -> Bundle {
        let url = try #require(Bundle.module.url(forResource: language, withExtension: "lproj"))
        return try #require(Bundle(url: url))
    }

    @Test func aSpinnerTurnsOnlyWhenShownInAWindow() {
        let spinner = OverlayProgress(fractionCompleted: nil)
        #expect(spinner.spinnerAnimates(isHidden: false, isInWindow: true))
        #expect(!spinner.spinnerAnimates(isHidden: false, isInWindow: false), "detached: no one sees it")
        #expect(!spinner.spinnerAnimates(isHidden: true, isInWindow: true))
        #expect(!OverlayProgress(fractionCompleted: 0.5).spinnerAnimates(isHidden: false, isInWindow: true))
    }

    @Test func aKnownFractionIsDeterminate() {
        let progress = OverlayProgress(fractionCompleted: 0.4)
        #expect(progress.isDeterminate)
        #expect(progress.fractionCompleted == 0.4)
    }

    @Test func noFractionIsTheSpinnerWithNoText() throws {
        let progress = OverlayProgress(fractionCompleted: nil)
        #expect(!progress.isDeterminate)
        #expect(progress.percentageText(bundle: try Self.bundle("en")) == nil)
        #expect(progress.accessibilityValue(bundle: try Self.bundle("en")) == nil)
    }

    @Test func notANumberIsTheSpinner() {
        #expect(OverlayProgress(fractionCompleted: .nan) == .indeterminate)
    }

    @Test func fractionsOutsideZeroToOneAreClamped() {
        #expect(OverlayProgress(fractionCompleted: 1.7).fractionCompleted == 1)
        #expect(OverlayProgress(fractionCompleted: -0.2).fractionCompleted == 0)
    }

    @Test func thePercentageIsRoundedDownSoThatOneHundredMeansDone() {
        #expect(OverlayProgress(fractionCompleted: 0.999).percent == 99)
        #expect(OverlayProgress(fractionCompleted: 0.405).percent == 40)
        #expect(OverlayProgress(fractionCompleted: 1).percent == 100)
        #expect(OverlayProgress(fractionCompleted: 0).percent == 0)
    }

    @Test func aFractionJustBelowAWholePercentInBinaryKeepsItsPercent() {
        // 0.29 * 100 is 28.999999999999996 in binary floating point.
        #expect(OverlayProgress(fractionCompleted: 0.29).percent == 29)
        #expect(OverlayProgress(fractionCompleted: 0.57).percent == 57)
    }

    @Test func thePercentageLabelInEnglish() throws {
        #expect(OverlayProgress(fractionCompleted: 0.4).percentageText(bundle: try Self.bundle("en")) == "40%")
    }

    @Test func thePercentageLabelInFrenchKeepsTheSignWithItsNumber() throws {
        #expect(OverlayProgress(fractionCompleted: 0.4).percentageText(bundle: try Self.bundle("fr")) == "40\u{A0}%")
    }

    @Test func theAccessibilityValueSaysPercentInWords() throws {
        let progress = OverlayProgress(fractionCompleted: 0.4)
        #expect(progress.accessibilityValue(bundle: try Self.bundle("en")) == "40 percent")
        #expect(progress.accessibilityValue(bundle: try Self.bundle("de")) == "40 Prozent")
    }

    @Test func theAnnouncementSaysTitleThenPercentage() throws {
        let progress = OverlayProgress(fractionCompleted: 0.4)
        #expect(progress.spokenText(title: "Loading", bundle: try Self.bundle("en")) == "Loading, 40 percent")
        #expect(progress.spokenText(title: "読み込み中", bundle: try Self.bundle("ja")) == "読み込み中、40パーセント")
    }

    @Test func theSpinnersAnnouncementIsTheTitleAlone() throws {
        #expect(OverlayProgress.indeterminate.spokenText(title: "Loading", bundle: try Self.bundle("en")) == "Loading")
    }

    @Test func aBundleWithoutTheKeysFallsBackToEnglishFormats() throws {
        let progress = OverlayProgress(fractionCompleted: 0.25)
        let foreign = Bundle(for: BundleToken.self)
        #expect(progress.percentageText(bundle: foreign) == "25%")
        #expect(progress.accessibilityValue(bundle: foreign) == "25 percent")
        #expect(progress.spokenText(title: "Loading", bundle: foreign) == "Loading, 25 percent")
    }

    @Test(arguments: ["en", "de", "es", "fr", "ja"])
    func everyLanguageHasAllThreeFormats(_ language: String) throws {
        let bundle = try Self.bundle(language)
        for key in [
            OverlayProgress.percentageKey, OverlayProgress.accessibilityValueKey, OverlayProgress.announcementKey,
        ] {
            #expect(
                bundle.localizedString(forKey: key, value: "missing", table: nil) != "missing",
                "\(language): \(key)"
            )
        }
    }

    @Test func theStartAnnouncementCarriesThePercentage() throws {
        let text = OverlayAnnouncement.text(
            for: .started,
            title: "Loading",
            progress: OverlayProgress(fractionCompleted: 0.4),
            bundle: try Self.bundle("en")
        )
        #expect(text == "Loading, 40 percent")
    }

    @Test func theEndAnnouncementIgnoresProgress() throws {
        let text = OverlayAnnouncement.text(
            for: .finished,
            title: "Loading",
            progress: OverlayProgress(fractionCompleted: 1),
            bundle: try Self.bundle("de")
        )
        #expect(text == "Laden abgeschlossen")
    }
}

/// A class of the test bundle, to name a bundle without the package's strings.
private final class BundleToken {}
