import Foundation
import Testing
@testable import ChimeDaemon

/// `[App DESKTOP-ID]` groups of the config (ConfigReader+Apps): read, and refused with
/// the file and line of the fault.
struct AppSettingsConfigTests {
    private func load(_ text: String) throws -> Result<Config, ConfigError> {
        try ConfigTests.load(text)
    }

    @Test func switchesAreReadAndAbsentOnesAreOn() throws {
        let config = try load("""
            [App org.example.Bills]
            Alerts=false
            Badges=false

            [App org.example.Quiet.desktop]
            Sounds=false
            """).get()
        #expect(config.apps == [
            "org.example.Bills": AppSettings(alerts: false, sounds: true, badges: false),
            "org.example.Quiet": AppSettings(alerts: true, sounds: false, badges: true),
        ])
        #expect(config.categories["reminder"] != nil, "the built-in category stays")
    }

    @Test(arguments: [
        ("[App org.example.A]\nAlerts=no\n", 2, "Alerts is 'no': write true or false."),
        ("[App org.example.A]\nSounds=true\nBadges=0\n", 3, "Badges is '0': write true or false."),
        ("[App org.example.A]\nVolume=3\n", 2, "[App org.example.A] has no key 'Volume': its keys are Alerts, Badges, Sounds."),
        ("# apps\n[App]\nAlerts=false\n", 2, "The app name is empty: write [App NAME]."),
        ("[App a/b]\nAlerts=false\n", 1, "'a/b' is not a desktop entry id such as org.example.App: write [App DESKTOP-ID]."),
    ])
    func badValuesAreReportedWithTheirLine(text: String, line: Int, message: String) throws {
        let result = try load(text)
        guard let error = result.firstError else {
            Issue.record("expected an error, got \(result)")
            return
        }
        #expect(error.line == line)
        #expect(error.message.hasSuffix(message), "\(error.message)")
    }

    @Test func anUnknownGroupNamesTheAppGroupToo() throws {
        guard let error = (try load("[Apps x]\n")).firstError else {
            Issue.record("expected an error")
            return
        }
        #expect(error.message.contains("[App DESKTOP-ID]"))
    }
}
