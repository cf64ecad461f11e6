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
         "chime: Geben Sie Kennungen, --all oder --match SCHLÜSSEL=WERT an (genau eines davon). Weitere Informationen mit »chime cancel --help«.\n"),
        (english, ["cancel"], "chime: give ids, --all or --match KEY=VALUE (one of them). See 'chime cancel --help'.\n"),
        // ArgumentParser's own words; a question keeps its question mark.
        (LanguageTests.german, ["log", "--limt", "3"],
         "chime: Unbekannte Option »--limt«. Meinten Sie »--limit«? Weitere Informationen mit »chime log --help«.\n"),
        (english, ["log", "--limt", "3"], "chime: Unknown option '--limt'. Did you mean '--limit'? See 'chime log --help'.\n"),
        (LanguageTests.german, ["lsit"], "chime: Unbekannter Befehl »lsit«. Meinten Sie »list«? Weitere Informationen mit »chime --help«.\n"),
        // chimed refused the value; chime names the option typed and says the fix in the session's language.
        (LanguageTests.german, ["add", "Standup", "--at", "9:30", "--repeat", "weekdays"],
         "chime: --repeat »weekdays« ist keine Zeiteinheit; meinten Sie --repeat week --on weekdays?\n"),
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
        // Named by the option typed, not chimed's key desktopEntry; chimed's reason as it said it.
        #expect(result.stderr == "chime: --app '../etc/passwd' is not a desktop entry id such as org.gnome.Calendar.\n", "\(result)")
    }

    @Test func humanOutputIsInTheSessionsLanguageAndJSONIsNot() throws {
        let session = try Self.session(LanguageTests.german)
        #expect(try session.run(["chime", "log"]).stdout == "Bisher ist nichts geschehen.\n")
        _ = try session.add("Gießen", "--in", "1h", "--repeat", "day", "--every", "2")
        let listed = try session.run(["chime", "list"]).stdout
        #expect(listed.contains("alle 2 Tage"), "\(listed)")
        #expect(try session.run(["chime", "cancel", "--all", "--yes"]).stdout == "1 Benachrichtigung gestrichen.\n")

        let log = try session.run(["chime", "log"]).stdout.split(separator: "\n")
        let header = try #require(log.first).split(separator: " ", omittingEmptySubsequences: true)
        #expect(header == ["ZEIT", "EREIGNIS", "KENNUNG", "AKTION", "TITEL"], "\(log)")
        let json = try session.run(["chime", "log", "--json"]).stdout
        #expect(json.contains("\"event\":\"cancelled\"") || json.contains("\"event\": \"cancelled\""), "\(json)")
    }

    @Test(arguments: [
        (LanguageTests.german,
         "chime: --near »nowhere« ist nicht im Format BREITE,LÄNGE in Grad, etwa 52.5200,13.4050. Weitere Informationen mit »chime add --help«.\n"),
        (english, "chime: --near 'nowhere' is not LAT,LON in degrees, as in 52.5200,13.4050. See 'chime add --help'.\n"),
    ])
    func aBadPlaceIsOneSentenceInTheSessionsLanguageWithStatus64(language: [String: String], expected: String) throws {
        let session = try Self.session(language)
        let result = try session.run(["chime", "add", "Milch kaufen", "--near", "nowhere"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == expected, "\(result)")
        #expect(try session.run(["chime", "list", "--json"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "[]")
    }

    @Test func listSaysItsHeadingsAndPlacesInTheSessionsLanguage() throws {
        try LanguageTests.builtCatalogues()
        let session = try TestSession(systemBus: true, extraEnvironment: LanguageTests.german)
        let geoclue = try FakeGeoClue(on: try #require(session.systemBus))
        let added = try session.run(["chime", "add", "Milch kaufen", "--near", "52.52,13.405", "--radius", "150m", "--on-entry"])
        #expect(added.status == 0, "\(added)")
        try geoclue.waitForCalls("Start", 1)
        let list = try session.run(["chime", "list"]).stdout.split(separator: "\n")
        let header = try #require(list.first).split(separator: " ", omittingEmptySubsequences: true)
        #expect(header == ["KENNUNG", "TITEL", "NÄCHSTE", "WIEDERHOLUNG"], "\(list)")
        #expect(list.count == 2 && list[1].contains("beim Betreten von 150m um 52.52,13.405"), "\(list)")
        let json = try session.run(["chime", "list", "--json"]).stdout
        #expect(json.contains("\"state\":\"scheduled\"") || json.contains("\"state\": \"scheduled\""), "\(json)")
    }

    @Test func aPlaceWithoutALocationSourceWaitsInTheSessionsLanguage() throws {
        let session = try Self.session(LanguageTests.german)
        let added = try session.run(["chime", "add", "Milch kaufen", "--near", "52.52,13.405"])
        #expect(added.status == 0, "\(added)")
        #expect(added.stderr.contains("wartet auf eine Standortquelle"), "\(added)")
        let list = try session.run(["chime", "list"]).stdout
        #expect(list.contains("wartet: beim Betreten oder Verlassen von 100m um 52.52,13.405"), "\(list)")
    }

    @Test func doctorSpeaksTheSessionsLanguageWithTheSameStatusAndEnglishJSON() throws {
        let session = try Self.session(LanguageTests.german)
        let doctor = try session.run(["chime", "doctor"])
        #expect(doctor.status == 0, "\(doctor)")
        #expect(doctor.stdout.hasPrefix("Sitzungsbus\n"), "\(doctor)")
        #expect(doctor.stdout.hasSuffix("Gesund, mit 1 Warnung.\n"), "\(doctor)")
        let json = try session.run(["chime", "doctor", "--json"])
        #expect(json.status == 0, "\(json)")
        #expect(json.stdout.contains("chimed is not running; the bus starts it on first use"), "\(json)")
    }
}
