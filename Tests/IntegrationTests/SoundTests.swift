import Foundation
import Testing
import TestSupport

/// Sounds: hints for servers that play them, libcanberra for those that cannot.
@Suite(.timeLimit(.minutes(10)))
struct SoundTests {
    /// Waits for chimed's log to mention `text`; the log is the only record of a local play.
    func waitForLog(_ session: TestSession, containing text: String) throws {
        let deadline = Date(timeIntervalSinceNow: 30)
        while !session.daemonLog.contains(text) {
            guard Date() < deadline else { throw TestFailure.timeout("log line with \(text)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test func serverWithoutSoundGetsItFromLibcanberra() throws {
        let session = try TestSession(capabilities: "body actions")
        let id = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                  "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                                  "{'title': <'Ding'>, 'sound': <'default'>}"]).stdout
            .split(separator: "'").dropFirst().first.map(String.init) ?? "?"
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("'sound-name': <'alarm-clock-elapsed'>"))
        // No sound card is needed: asking libcanberra is what is checked (played or refused).
        try waitForLog(session, containing: "the sound of \(id)")
    }

    @Test func serverWithSoundIsNotDoubled() throws {
        let session = try TestSession(capabilities: "body actions sound")
        let sent = try session.run(["chime", "notify", "-p", "-h", "string:sound-name:bell", "Ding"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let viaField = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                        "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                                        "{'title': <'Dong'>, 'sound': <'bell'>}"])
        #expect(viaField.status == 0)
        _ = try session.waitForNotifyCalls(2)
        #expect(!session.daemonLog.contains("the sound of \(id)"))
        #expect(!session.daemonLog.contains("libcanberra could not play"))
        #expect(!session.daemonLog.contains("Played the sound"))
    }

    @Test func notifyPassesItsSoundAsAddDoes() throws {
        let session = try TestSession(capabilities: "body actions sound")
        #expect(try session.run(["chime", "notify", "--sound", "bell", "Ding"]).status == 0)
        #expect(try session.run(["chime", "notify", "--sound", "none", "Quiet"]).status == 0)
        #expect(try session.run(["chime", "notify", "--sound=/usr/share/sounds/bell.oga", "File"]).status == 0)
        let calls = try session.waitForNotifyCalls(3)
        let call = { (title: String) in calls.first { $0.contains("'\(title)'") } ?? "" }
        #expect(call("Ding").contains("'sound-name': <'bell'>"), "\(calls)")
        #expect(call("Quiet").contains("'suppress-sound': <true>") && !call("Quiet").contains("sound-name"), "\(calls)")
        #expect(call("File").contains("'sound-file': <'/usr/share/sounds/bell.oga'>"), "\(calls)")
        let bad = try session.run(["chime", "notify", "--sound", "", "Bad"])
        #expect(bad.status != 0 && bad.stderr.contains("sound"), "\(bad)")
    }
}
