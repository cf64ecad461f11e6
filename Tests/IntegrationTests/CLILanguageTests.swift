import Foundation
import Testing
import TestSupport

/// chime's own messages and words in the session's language, with the same exit
/// statuses in every language; chimed's D-Bus errors and JSON output stay as they are.
@Suite(.timeLimit(.minutes(5)))
struct CLILanguageTests {
    static let english = ["LANGUAGE": "", "LANG": "C.UTF-8"]

    /// A session whose commands speak `language`, with Chime's catalogues built.
    static func session(_ language: [String: String]) throws -> TestSession {
        try LanguageTests.builtCatalogues()
        return try TestSession(extraEnvironment: language)
    }

    @Test(arguments: [
        (LanguageTests.german, ["cancel"],
         "chime: Geben Sie Kennungen, --all oder --match SCHLÜSSEL=WERT an (genau eines davon). Weitere Informationen mit »chime --help«.\n"),
        (english, ["cancel"], "chime: give ids, --all or --match KEY=VALUE (one of them). See 'chime --help'.\n"),
        // ArgumentParser's own words; a question keeps its question mark.
        (LanguageTests.german, ["log", "--limt", "3"],
         "chime: Unbekannte Option »--limt«. Meinten Sie »--limit«? Weitere Informationen mit »chime --help«.\n"),
        (english, ["log", "--limt", "3"], "chime: Unknown option '--limt'. Did you mean '--limit'? See 'chime --help'.\n"),
    ])
    func aUsageErrorIsOneSentenceInTheSessionsLanguageWithStatus64(language: [String: String], arguments: [String], expected: String) throws {
        let session = try Self.session(language)
        let result = try session.run(["chime"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == expected, "\(result)")
    }

    @Test func aMissingIdIsSaidInTheSessionsLanguageWithStatus1() throws {
        let german = try Self.session(LanguageTests.german)
        let result = try german.run(["chime", "cancel", "NOPE"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "chime: Es gibt keine Benachrichtigung mit der Kennung »NOPE«.\n", "\(result)")

        let english = try Self.session(Self.english)
        let plain = try english.run(["chime", "cancel", "NOPE"])
        #expect(plain.status == 1, "\(plain)")
        #expect(plain.stderr == "chime: No notification has the id 'NOPE'.\n", "\(plain)")
    }

    @Test func chimedsOwnRefusalStaysEnglishWithStatus64() throws {
        let session = try Self.session(LanguageTests.german)
        let result = try session.run(["chime", "badge", "--app", "../etc/passwd", "1"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "chime: desktopEntry: '../etc/passwd' is not a desktop entry id such as org.gnome.Calendar.\n", "\(result)")
    }

    @Test func humanOutputIsInTheSessionsLanguageAndJSONIsNot() throws {
        let session = try Self.session(LanguageTests.german)
        #expect(try session.run(["chime", "log"]).stdout == "Bisher ist nichts geschehen.\n")
        _ = try session.add("Gießen", "--in", "1h", "--repeat", "day", "--every", "2")
        let listed = try session.run(["chime", "list"]).stdout
        #expect(listed.contains("alle 2 Tage"), "\(listed)")
        #expect(try session.run(["chime", "cancel", "--all"]).stdout == "1 Benachrichtigung gestrichen.\n")

        let log = try session.run(["chime", "log"]).stdout.split(separator: "\n")
        let header = try #require(log.first).split(separator: " ", omittingEmptySubsequences: true)
        #expect(header == ["ZEIT", "EREIGNIS", "KENNUNG", "AKTION", "TITEL"], "\(log)")
        let json = try session.run(["chime", "log", "--json"]).stdout
        #expect(json.contains("\"event\":\"cancelled\"") || json.contains("\"event\": \"cancelled\""), "\(json)")
    }
}
