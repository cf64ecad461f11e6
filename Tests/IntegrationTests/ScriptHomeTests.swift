import Foundation
import Testing
import TestSupport

/// The scripts that start a chimed of their own (the demo here; make bench, soak and
/// screenshot set the same variables) give it a schedule and a history of its own: the
/// user's are never written. The history is state, in XDG_STATE_HOME, which they once
/// left out, so every demo added to the user's own history.
struct ScriptHomeTests {
    @Test func theDemoOnAPrivateBusLeavesTheUsersFilesAlone() throws {
        let home = try temporaryDirectory("home")
        defer { try? FileManager.default.removeItem(at: home) }
        var environment = ProcessInfo.processInfo.environment
        for name in ["DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY",
                     "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME"] {
            environment[name] = nil
        }
        environment["HOME"] = home.path
        environment["CHIME_BIN_DIR"] = binDirectory.path
        // The activation file `make services` writes, for the chimed under test.
        let services = try temporaryDirectory("services")
        defer { try? FileManager.default.removeItem(at: services) }
        let template = try String(contentsOf: packageRoot.appendingPathComponent("dbus/io.github.chime.Chime.service.in"), encoding: .utf8)
        try template.replacingOccurrences(of: "@CHIMED@", with: binDirectory.appendingPathComponent("chimed").path)
            .write(to: services.appendingPathComponent("io.github.chime.Chime.service"), atomically: true, encoding: .utf8)
        environment["CHIME_SERVICE_DIR"] = services.path
        let demo = try Spawned([packageRoot.appendingPathComponent("scripts/demo.sh").path], environment: environment)
            .finish(timeout: 300)
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("button pressed"), "\(demo)")
        let left = FileManager.default.enumerator(atPath: home.path)?.allObjects as? [String] ?? []
        #expect(left.isEmpty, "the demo wrote into HOME: \(left)")
    }
}
