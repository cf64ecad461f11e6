import Foundation
import Testing
import TestSupport

/// `chime doctor` reports what chimed acts on: the capabilities it learned and how its
/// last sound of its own went, not only that libcanberra could be set up.
@Suite(.timeLimit(.minutes(10)))
struct DoctorSoundTests {
    @Test func aFailedLocalSoundIsReportedNotAssumedPlayed() throws {
        let session = try TestSession(capabilities: "body actions")
        // Not a sound: libcanberra refuses it whether or not the machine has an audio device.
        let noise = session.directory.appendingPathComponent("noise.wav")
        try Data(repeating: 0x5A, count: 4096).write(to: noise)
        let sent = try session.run(["chime", "notify", "--sound", noise.path, "Ding"])
        #expect(sent.status == 0, "\(sent)")
        try session.waitForDaemonLog(containing: "libcanberra could not play the sound")

        var environment = session.environment
        environment["DISPLAY"] = nil
        let chime = binDirectory.appendingPathComponent("chime").path
        let text = try Spawned([chime, "doctor"], environment: environment).finish()
        #expect(text.stdout.contains("but the last one failed:"), "\(text)")
        #expect(text.stdout.contains("The last sound chimed played itself failed"), "\(text)")

        let result = try Spawned([chime, "doctor", "--json"], environment: environment).finish()
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        let chimed = try #require(object["chimed"] as? [String: Any])
        let last = try #require(chimed["lastLocalSound"] as? String, "\(chimed)")
        #expect(last != "played")
        #expect(chimed["capabilities"] as? [String] == ["actions", "body"], "\(chimed)")
        #expect(object["healthy"] as? Bool == true, "a silent sound leaves notifications showing: \(result.stdout)")
    }

    @Test func chimedsCapabilitiesAreShownBesideTheServers() throws {
        let session = try TestSession(capabilities: "body actions sound")
        #expect(try session.run(["chime", "list"]).status == 0)
        var environment = session.environment
        environment["DISPLAY"] = nil
        let result = try Spawned([binDirectory.appendingPathComponent("chime").path, "doctor"], environment: environment).finish()
        let lines = result.stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("using: actions body sound"), "\(result)")
        #expect(lines.contains("capabilities: body actions sound"), "\(result)")
    }
}
