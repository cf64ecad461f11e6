import Foundation
import TestSupport

/// A socket that takes connections and never answers: a wedged dbus-daemon, for the
/// tests that point `DBUS_SYSTEM_BUS_ADDRESS` at it. Stopped and removed with its owner.
final class WedgedBus {
    let folder: URL
    let process: Spawned

    init() throws {
        folder = try temporaryDirectory("wedged-system-bus")
        let socket = folder.appendingPathComponent("system_bus_socket").path
        process = try Spawned(["python3", "-c", """
            import socket, sys, time
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(16)
            print("listening", flush=True)
            time.sleep(600)
            """, socket], environment: ProcessInfo.processInfo.environment)
        guard process.stdout.wait(timeout: 30, until: { $0.contains("listening") }) else {
            throw TestFailure.failed("the wedged bus did not listen: \(process.stderr.text)")
        }
    }

    /// The D-Bus address of the socket.
    var address: String { "unix:path=" + folder.appendingPathComponent("system_bus_socket").path }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
