import Foundation
import Glibc
import Testing
import TestSupport

/// Per-app settings (`[App DESKTOP-ID]`, registerUserNotificationSettings), end to end:
/// the real chimed reading the config, the mock server, and `GetAppSettings` over gdbus.
@Suite(.timeLimit(.minutes(5)))
struct AppSettingsTests {
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
        try session.writeConfig(Self.config)
        let id = try session.presentNow("Muted", desktopEntry: "org.example.Mute")
        try session.waitForDaemonLog(containing: "not shown: [App org.example.Mute] has Alerts=false")
        #expect(try session.run(["chime", "notify", "Marker"]).status == 0)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.count == 1 && calls[0].contains("'Marker'"), "\(calls)")
        let log = try session.run(["chime", "log", "--id", id]).stdout
        #expect(log.contains("withheld"), "\(log)")
        #expect(try session.badge(of: "org.example.Mute") == "4", "badges stay on")
    }

    @Test func soundsOffSendsSuppressSoundAndNoSoundName() throws {
        let session = try TestSession()
        try session.writeConfig(Self.config)
        _ = try session.presentNow("Quiet", desktopEntry: "org.example.Quiet")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'suppress-sound': <true>") && !call.contains("sound-name"), "\(call)")
        #expect(try session.badge(of: "org.example.Quiet") == "4")
    }

    @Test func badgesOffSetsNoBadge() throws {
        let session = try TestSession()
        try session.writeConfig(Self.config)
        _ = try session.presentNow("Plain", desktopEntry: "org.example.Plain")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'sound-name': <'bell'>"), "\(call)")
        #expect(try session.badge(of: "org.example.Plain") == "0")
    }

    @Test func getAppSettingsAnswersAnyIdAndRefusesAnEmptyOne() throws {
        let session = try TestSession()
        try session.writeConfig(Self.config)
        #expect(try settings(session, "org.example.Mute").stdout
            == "({'alerts': <false>, 'sounds': <true>, 'badges': <true>},)\n")
        #expect(try settings(session, "org.example.Plain.desktop").stdout.contains("'badges': <false>"))
        #expect(try settings(session, "org.example.Unknown").stdout
            == "({'alerts': <true>, 'sounds': <true>, 'badges': <true>},)\n")
        let empty = try settings(session, "")
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("InvalidArgs: app: empty"), "\(empty)")
    }

    @Test func aReloadAppliesNewSettingsAndABrokenGroupCostsOnlyItsApp() throws {
        let session = try TestSession()
        try session.writeConfig("[App org.example.A]\nSounds=false\n")
        #expect(try settings(session, "org.example.A").stdout.contains("'sounds': <false>"))
        let pid = try session.daemonPID()
        try session.writeConfig("[App org.example.A]\nAlerts=false\n[App org.example.B]\nBadges=false\n")
        kill(pid, SIGHUP)
        try session.waitForDaemonLog(containing: "2 app settings")
        #expect(try settings(session, "org.example.A").stdout == "({'alerts': <false>, 'sounds': <true>, 'badges': <true>},)\n")
        try session.writeConfig("[App org.example.A]\nAlerts=false\nSounds=sometimes\n[App org.example.B]\nSounds=false\n")
        kill(pid, SIGHUP)
        try session.waitForDaemonLog(containing: "config:3: [App org.example.A] Sounds is 'sometimes': write true or false.")
        #expect(try settings(session, "org.example.A").stdout == "({'alerts': <true>, 'sounds': <true>, 'badges': <true>},)\n",
                "the broken group is left out whole")
        #expect(try settings(session, "org.example.B").stdout == "({'alerts': <true>, 'sounds': <false>, 'badges': <true>},)\n",
                "the rest of the file is used")
    }
}
