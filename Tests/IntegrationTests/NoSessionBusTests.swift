import Foundation
import Testing
import TestSupport

/// `chime` in a terminal whose session bus is not to be found (an ssh login, a su, a
/// cron job): it says what `chime doctor` says and starts nothing.
@Suite(.timeLimit(.minutes(5)))
struct NoSessionBusTests {
    /// With DISPLAY set and no bus address, libdbus's last resort is X11 autolaunch:
    /// dbus-launch starts a bus of its own, records it in ~/.dbus/session-bus, and chimed
    /// would be activated there, unseen by the desktop and left running.
    @Test func aCommandSaysWhatDoctorSaysAndLaunchesNoBus() throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("chime-nobus-\(UUID().uuidString)")
        let home = scratch.appendingPathComponent("home"), runtime = scratch.appendingPathComponent("runtime")
        for folder in [home, runtime] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: scratch) }
        var environment = ProcessInfo.processInfo.environment
        for key in ["DBUS_SESSION_BUS_ADDRESS", "WAYLAND_DISPLAY", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"] {
            environment[key] = nil
        }
        environment["HOME"] = home.path
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["LANG"] = "C.UTF-8"
        let display = try XDisplay(environment: environment)
        defer { display.stop() }
        environment["DISPLAY"] = display.name
        let launched = home.appendingPathComponent(".dbus/session-bus")
        defer { Self.stopLaunchedBuses(in: launched) }

        let chime = binDirectory.appendingPathComponent("chime").path
        let list = try Spawned([chime, "list"], environment: environment).finish()
        #expect(list.status == 69, "\(list)")
        let lines = list.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(list)")
        let sentence = String(lines.first ?? "").replacingOccurrences(of: "chime: ", with: "")
        #expect(sentence.hasPrefix("No session bus: DBUS_SESSION_BUS_ADDRESS is not set"), "\(list)")

        let doctor = try Spawned([chime, "doctor"], environment: environment).finish()
        #expect(doctor.status == 69, "\(doctor)")
        #expect(doctor.stdout.contains(sentence), "doctor says otherwise:\n\(doctor.stdout)\nlist said: \(sentence)")
        #expect(!FileManager.default.fileExists(atPath: launched.path), "a bus was autolaunched: \(launched.path)")
    }

    /// Kills what dbus-launch started, should a broken build have let it: its file names the bus's pid.
    static func stopLaunchedBuses(in folder: URL) {
        for file in (try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [] {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") where line.hasPrefix("DBUS_SESSION_BUS_PID=") {
                if let pid = pid_t(line.dropFirst("DBUS_SESSION_BUS_PID=".count)) { kill(pid, SIGTERM) }
            }
        }
    }
}
