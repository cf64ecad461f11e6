import Foundation
import Testing
import TestSupport

/// The scripts that start a chimed of their own (the demo here; make bench, soak and
/// screenshot call the same chime_private_store) give it a schedule and a history of
/// its own: the user's are never written. The history is state, in XDG_STATE_HOME, which
/// they once left out, so every demo added to the user's own history.
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
        try writeChimedServiceFile(in: services)
        environment["CHIME_SERVICE_DIR"] = services.path
        let demo = try Spawned([packageRoot.appendingPathComponent("scripts/demo.sh").path], environment: environment)
            .finish(timeout: 300)
        #expect(demo.status == 0, "\(demo)")
        #expect(demo.stdout.contains("button pressed"), "\(demo)")
        let left = FileManager.default.enumerator(atPath: home.path)?.allObjects as? [String] ?? []
        #expect(left.isEmpty, "the demo wrote into HOME: \(left)")
    }
}
