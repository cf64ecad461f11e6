import Testing
@testable import Localization

struct LanguageListTests {
    @Test func theCLocaleTranslatesNothingWhateverLanguageSays() {
        #expect(LanguageList.of(locale: "C", language: "de").isEmpty)
        #expect(LanguageList.of(locale: "POSIX", language: "de").isEmpty)
    }

    @Test func languageListsComeFirstThenTheLocale() {
        #expect(LanguageList.of(locale: "de_DE.UTF-8", language: "fr:de") == ["fr", "de"])
        #expect(LanguageList.of(locale: "de_DE.UTF-8", language: "") == ["de_DE.UTF-8"])
        #expect(LanguageList.of(locale: "de_DE.UTF-8", language: nil) == ["de_DE.UTF-8"])
    }

    @Test func variantsGoFromTheMostSpecific() {
        #expect(LanguageList.variants(of: "de_DE.UTF-8@euro")
                == ["de_DE.UTF-8@euro", "de_DE.utf8@euro", "de_DE@euro", "de_DE", "de@euro", "de"])
        #expect(LanguageList.variants(of: "de") == ["de"])
        #expect(LanguageList.variants(of: "pt_BR") == ["pt_BR", "pt"])
        #expect(LanguageList.variants(of: "../evil").isEmpty)
    }
}
