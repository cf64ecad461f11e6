import Foundation
import Glibc
import Testing
import TestSupport

/// Per-app settings (`[App DESKTOP-ID]`, registerUserNotificationSettings), end to end:
/// the real chimed reading the config, the mock server, and `GetAppSettings` over gdbus.
@Suite(.timeLimit(.minutes(5)))
struct AppSettingsTests {
    func writeConfig(_ session: TestSession, _ text: String) throws {
        let directory = session.directory.appendingPathComponent("config/chime")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try text.write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    /// PresentNow for `app` with a sound and a badge; returns the id.
    func present(_ session: TestSession, _ title: String, app: String) throws -> String {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                      "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                                      "{'title': <'\(title)'>, 'desktopEntry': <'\(app)'>, 'sound': <'bell'>, 'badge': <4>}"])
        guard result.status == 0, let id = result.stdout.split(separator: "'").dropFirst().first else {
            throw TestFailure.failed("PresentNow: \(result)")
        }
        return String(id)
    }

    func badge(_ session: TestSession, _ app: String) throws -> String {
        try session.run(["chime", "badge", "--app", app]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func settings(_ session: TestSession, _ app: String) throws -> ProcessResult {
        try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                         "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.GetAppSettings", app])
    }

    static let config = """
        [App org.example.Mute]
        Alerts=false

        [App org.example.Quiet]
        Sounds=false

        [App org.example.Plain.desktop]
        Badges=false
        """

    @Test func alertsOffShowsNothingAndTheHistorySaysSo() throws {
        let session = try TestSession()
        try writeConfig(session, Self.config)
        let id = try present(session, "Muted", app: "org.example.Mute")
        try session.waitForDaemonLog(containing: "not shown: [App org.example.Mute] has Alerts=false")
        #expect(try session.run(["chime", "notify", "Marker"]).status == 0)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.count == 1 && calls[0].contains("'Marker'"), "\(calls)")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("withheld"), "\(log)")
        #expect(try badge(session, "org.example.Mute") == "4", "badges stay on")
    }

    @Test func soundsOffSendsSuppressSoundAndNoSoundName() throws {
        let session = try TestSession()
        try writeConfig(session, Self.config)
        _ = try present(session, "Quiet", app: "org.example.Quiet")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'suppress-sound': <true>") && !call.contains("sound-name"), "\(call)")
        #expect(try badge(session, "org.example.Quiet") == "4")
    }

    @Test func badgesOffSetsNoBadge() throws {
        let session = try TestSession()
        try writeConfig(session, Self.config)
        _ = try present(session, "Plain", app: "org.example.Plain")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'sound-name': <'bell'>"), "\(call)")
        #expect(try badge(session, "org.example.Plain") == "0")
    }

    @Test func getAppSettingsAnswersAnyIdAndRefusesAnEmptyOne() throws {
        let session = try TestSession()
        try writeConfig(session, Self.config)
        #expect(try settings(session, "org.example.Mute").stdout
            == "({'alerts': <false>, 'sounds': <true>, 'badges': <true>},)\n")
        #expect(try settings(session, "org.example.Plain.desktop").stdout.contains("'badges': <false>"))
        #expect(try settings(session, "org.example.Unknown").stdout
            == "({'alerts': <true>, 'sounds': <true>, 'badges': <true>},)\n")
        let empty = try settings(session, "")
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("InvalidArgs: app: empty"), "\(empty)")
    }

    @Test func aReloadAppliesNewSettingsAndABrokenOneKeepsTheLast() throws {
        let session = try TestSession()
        try writeConfig(session, "[App org.example.A]\nSounds=false\n")
        #expect(try settings(session, "org.example.A").stdout.contains("'sounds': <false>"))
        let pid = try session.daemonPID()
        try writeConfig(session, "[App org.example.A]\nAlerts=false\n[App org.example.B]\nBadges=false\n")
        kill(pid, SIGHUP)
        try session.waitForDaemonLog(containing: "2 app settings")
        #expect(try settings(session, "org.example.A").stdout == "({'alerts': <false>, 'sounds': <true>, 'badges': <true>},)\n")
        try writeConfig(session, "[App org.example.A]\nAlerts=true\nSounds=sometimes\n")
        kill(pid, SIGHUP)
        try session.waitForDaemonLog(containing: "config:3: [App org.example.A] Sounds is 'sometimes': write true or false.")
        #expect(try settings(session, "org.example.A").stdout.contains("'alerts': <false>"), "the last good config stays")
    }
}
