import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// `Label[LANG]=` translations and relabelled built-in buttons, read and then picked for
/// a language as chimed picks them when a notification is shown.
struct ConfigLabelsTests {
    private func load(_ text: String) throws -> Result<Config, ConfigError> {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("chime-labels-\(UUID().uuidString)")
        try text.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        return Config.load(from: file)
    }

    @Test func everyTranslationIsKeptAndTheSessionsLanguagePicksOne() throws {
        let config = try load("""
            [Category todo]
            Actions=log;

            [Action log]
            Label=Log it
            Label[de]=Protokollieren
            Label[fr_FR]=Noter
            """).get()
        let log = try #require(config.categories["todo"]?.actions.first)
        #expect(log.translations == ["de": "Protokollieren", "fr_FR": "Noter"])
        #expect(ShownTexts.label(of: log, languages: ["de_DE.UTF-8"]) == "Protokollieren")
        #expect(ShownTexts.label(of: log, languages: ["fr_FR.UTF-8"]) == "Noter")
        #expect(ShownTexts.label(of: log, languages: ["it", "de"]) == "Protokollieren")
        #expect(ShownTexts.label(of: log, languages: ["fr_CA"]) == "Log it")
        #expect(ShownTexts.label(of: log, languages: []) == "Log it")
    }

    @Test func aBuiltInButtonMayBeRelabelledAndKeepsItsHandler() throws {
        let config = try load("[Action complete]\nLabel=Done\nLabel[de]=Fertig\n").get()
        let complete = try #require(config.categories["reminder"]?.actions.first)
        #expect(complete.key == "complete")
        #expect(complete.handler == .complete)
        #expect(complete.label == "Done")
        #expect(ShownTexts.label(of: complete, languages: ["de"]) == "Fertig")
        #expect(ShownTexts.label(of: complete, languages: []) == "Done")
        // The other built-in button is untouched.
        #expect(config.categories["reminder"]?.actions.last == Category.reminder.actions.last)
    }

    @Test func onlyATranslationLeavesTheBuiltInLabelForOtherLanguages() throws {
        let config = try load("[Category todo]\nActions=remind;\n[Action remind]\nLabel[de]=Später\n").get()
        let remind = try #require(config.categories["todo"]?.actions.first)
        #expect(remind.label == "Remind in 30 minutes")
        #expect(remind.handler == .snooze(.after(30 * 60)))
        #expect(ShownTexts.label(of: remind, languages: ["de"]) == "Später")
    }

    @Test func aBuiltInGroupWithAHandlerOrAnEmptyTranslationIsAnError() throws {
        guard let handler = (try load("[Action remind]\nLabel=Later\nExec=/bin/true\n")).firstError else {
            Issue.record("a built-in with Exec= was accepted")
            return
        }
        #expect(handler.line == 3)
        #expect(handler.message.contains("may only relabel"))
        guard let empty = (try load("[Action log]\nLabel=Log\nLabel[de]=\n")).firstError else {
            Issue.record("an empty Label[de]= was accepted")
            return
        }
        #expect(empty.line == 3)
        #expect(empty.message.contains("Label[de] is empty"))
    }
}
