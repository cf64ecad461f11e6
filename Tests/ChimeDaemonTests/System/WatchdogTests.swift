import EventLoop
import Foundation
import Glibc
import Testing
import TestSupport
@testable import ChimeDaemon

struct WatchdogTests {
    @Test func settingsComeFromSystemdsVariables() {
        let socket = ["NOTIFY_SOCKET": "/run/user/1000/systemd/notify"]
        #expect(Watchdog.settings(environment: socket, pid: 10) == nil)
        #expect(Watchdog.settings(environment: ["WATCHDOG_USEC": "600000000"], pid: 10) == nil)
        let asked = socket.merging(["WATCHDOG_USEC": "600000000"]) { $1 }
        #expect(Watchdog.settings(environment: asked, pid: 10) == .init(socket: "/run/user/1000/systemd/notify", intervalMilliseconds: 300_000))
        #expect(Watchdog.settings(environment: asked.merging(["WATCHDOG_PID": "10"]) { $1 }, pid: 10) != nil)
        #expect(Watchdog.settings(environment: asked.merging(["WATCHDOG_PID": "11"]) { $1 }, pid: 10) == nil)
        #expect(Watchdog.settings(environment: asked.merging(["NOTIFY_SOCKET": "@abstract"]) { $1 }, pid: 10)?.socket == "@abstract")
        for bad in ["0", "-5", "soon", ""] {
            #expect(Watchdog.settings(environment: asked.merging(["WATCHDOG_USEC": bad]) { $1 }, pid: 10) == nil)
        }
        for bad in ["relative/path", "@", "", "vsock:2:1234"] {
            #expect(Watchdog.settings(environment: asked.merging(["NOTIFY_SOCKET": bad]) { $1 }, pid: 10) == nil)
        }
        let huge = Watchdog.settings(environment: asked.merging(["WATCHDOG_USEC": "18446744073709551615"]) { $1 }, pid: 10)
        #expect((huge?.intervalMilliseconds ?? 0) > 0)
    }

    @Test(arguments: [true, false])
    func pingsOnlyWhileHealthy(healthy: Bool) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chime-watchdog-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = try NotifySocket(directory: directory)
        let loop = EventLoop()
        let log = LogRecorder()
        let watchdog = try #require(Watchdog(environment: ["NOTIFY_SOCKET": socket.address, "WATCHDOG_USEC": "2000"],
                                             loop: loop, logger: log.logger) { healthy })
        watchdog.start()
        if healthy {
            #expect(socket.receive(timeout: 30) == "WATCHDOG=1")
            // The next one comes from the loop, a millisecond later.
            try loop.runOnce(timeoutMilliseconds: 1_000)
            #expect(socket.receive(timeout: 30) == "WATCHDOG=1")
        } else {
            try loop.runOnce(timeoutMilliseconds: 1_000)
            #expect(socket.receive(timeout: 0) == nil)
            #expect(log.contains("error: The bus connection is gone; no watchdog ping, so that systemd restarts chimed."))
        }
    }

    @Test func commandsAndAppsDoNotInheritTheVariables() throws {
        setenv("WATCHDOG_USEC", "60000000", 1)
        setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1)
        setenv("WATCHDOG_PID", "\(getpid())", 1)
        let watchdog = Watchdog(environment: ProcessInfo.processInfo.environment, loop: EventLoop(), logger: LogRecorder().logger) { true }
        #expect(watchdog != nil)
        for name in Watchdog.environmentNames {
            #expect(getenv(name) == nil, "\(name)")
            #expect(ProcessInfo.processInfo.environment[name] == nil, "\(name)")
        }
    }
}
