import Foundation
import Testing
import TestSupport

/// chimed's life cycle, run by hand instead of through activation.
@Suite(.timeLimit(.minutes(10)))
struct DaemonTests {
    @Test func sigtermIsACleanExit() throws {
        let session = try TestSession()
        let daemon = try session.spawn(["chimed"])
        try session.waitForName("io.github.chime.Chime")
        kill(daemon.process.processIdentifier, SIGTERM)
        let result = try daemon.finish()
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("exiting"))
    }

    /// chimed is one thread, a poll loop. Letting a database queue go (the history check, the
    /// backup) once started libdispatch's worker pool, whose monitor then woke chimed
    /// every second for good: `make bench` counted 60 wake-ups a minute when idle.
    @Test func anIdleChimedIsOneThreadAfterItsBackup() throws {
        let session = try TestSession()
        try session.addReminders(3)
        try session.waitForLog("Backed up the store")
        #expect(try session.run(["chime", "notify", "Shown"]).status == 0)
        _ = try session.waitForNotifyCalls(1)
        let tasks = "/proc/\(try session.daemonPID())/task"
        let threads = try FileManager.default.contentsOfDirectory(atPath: tasks).map { task in
            (try? String(contentsOfFile: "\(tasks)/\(task)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? task
        }
        #expect(threads == ["chimed"], "\(threads)")
    }

    /// The lines that say where start-up went, which the performance notes quote: each
    /// step once, in order, and the steps add up to the whole within rounding; then what
    /// waited for the first calls to be answered.
    @Test func theStartUpLineNamesEachStepAndTheyAddUp() throws {
        let session = try TestSession()
        try session.addReminders(1)
        let log = try session.waitForDaemonLog(containing: "Then, after the first calls: ")
        let line = try #require(log.split(separator: "\n").first { $0.contains("after main: ") })
        let match = try #require(line.firstMatch(of: /ready (\d+\.\d) ms after main: (.*)\./))
        let steps = match.2.split(separator: ", ").map { $0.split(separator: " ") }
        let names = steps.map { $0.dropLast().joined(separator: " ") }
        #expect(names == ["runtime", "bus", "name", "store", "config", "schedule"], "\(line)")
        let sum = steps.compactMap { Double($0.last ?? "") }.reduce(0, +)
        let total = try #require(Double(match.1))
        #expect(total > 0 && abs(sum - total) <= 0.1 * Double(steps.count), "\(line)")
        let then = try #require(log.split(separator: "\n").first { $0.contains("Then, after the first calls: ") })
        #expect(then.firstMatch(of: /Then, after the first calls: history \d+\.\d, system bus \d+\.\d, services \d+\.\d, calendars \d+\.\d, words \d+\.\d ms\./) != nil, "\(then)")
    }

    /// A system bus that takes the connection and never answers (a wedged dbus-daemon)
    /// holds nothing up: libdbus's own connect would wait for it for ever, so chimed says
    /// hello from its loop. Calls are answered while it waits, and after 25 s without an
    /// answer chimed says there is no system bus and goes on.
    @Test func aSystemBusThatNeverAnswersHoldsNothingUp() throws {
        let wedged = try WedgedBus()
        let session = try TestSession(extraEnvironment: ["DBUS_SYSTEM_BUS_ADDRESS": wedged.address])

        for _ in 0..<2 {
            let answered = try session.run(["chime", "list"])
            #expect(answered.status == 0, "\(answered)")
        }
        #expect(session.daemonLog.contains("Then, after the first calls: "), "\(session.daemonLog)")
        #expect(!session.daemonLog.contains("No system bus"), "\(session.daemonLog)")
        try session.waitForLog("No system bus (", timeout: 120)
        let after = try session.run(["chime", "list"])
        #expect(after.status == 0, "\(after)")
        withExtendedLifetime(wedged) {}
    }

    @Test func secondDaemonFindsTheNameTakenAndLeavesQuietly() throws {
        let session = try TestSession()
        let first = try session.spawn(["chimed"])
        try session.waitForName("io.github.chime.Chime")
        let second = try session.run(["chimed"])
        #expect(second.status == 0, "\(second)")
        #expect(second.stderr.contains("Another chimed already owns io.github.chime.Chime"))
        #expect(first.process.isRunning)
    }

    /// chimed asks for its name before it opens the store and reads the answer after. One
    /// that finds the store free but the name owned (by a chimed starting beside it, here
    /// a process that only holds the name) lets the store go again and leaves quietly,
    /// having changed nothing.
    @Test func aDaemonThatLosesTheNameAfterOpeningTheStoreLetsItGo() throws {
        let session = try TestSession()
        _ = try session.add("Kept", "--in", "1h")
        try session.stopDaemon()
        let before = try Data(contentsOf: session.storeFile)
        let holder = try session.spawn(["/usr/bin/python3", "-c", """
            from gi.repository import Gio, GLib
            bus = Gio.bus_get_sync(Gio.BusType.SESSION)
            bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'RequestName',
                          GLib.Variant('(su)', ('io.github.chime.Chime', 4)), None, 0, -1, None)
            GLib.MainLoop().run()
            """])
        try session.waitForName("io.github.chime.Chime")
        let loser = try session.run(["chimed"])
        #expect(loser.status == 0, "\(loser)")
        #expect(loser.stderr.contains("Another chimed already owns io.github.chime.Chime"), "\(loser)")
        #expect(!loser.stderr.contains("after main"), "\(loser)")
        #expect(try Data(contentsOf: session.storeFile) == before)
        #expect(holder.process.isRunning)

        try session.killDaemon(signal: SIGTERM)
        #expect(try session.listedTitles() == ["Kept"])
    }

    /// Not a clean exit: 69, so that the user unit (Restart=on-failure) starts chimed
    /// again once there is a bus (see BusFaultTests for the bus dying mid-work).
    @Test func endOfTheSessionEndsTheDaemon() throws {
        let session = try TestSession()
        let daemon = try session.spawn(["chimed"])
        try session.waitForName("io.github.chime.Chime")
        session.stopBus()
        let result = try daemon.finish()
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("The session bus closed; exiting with status 69 for the user unit to start chimed again."))
    }

    /// As when a unit or an autostart entry runs outside a session: one sentence, and
    /// 69 so that the unit's Restart= applies (a usage error, 64, is not retried).
    @Test func noSessionBusIsOneSentenceAndExit69() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("chime-runtime-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: runtime) }
        var environment = ProcessInfo.processInfo.environment
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"] { environment[key] = nil }
        // An empty runtime folder: libdbus's fallback, $XDG_RUNTIME_DIR/bus, is not there.
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let result = try Spawned([binDirectory.appendingPathComponent("chimed").path], environment: environment).finish()
        #expect(result.status == 69, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result)")
        #expect(lines.first?.contains("No session bus: DBUS_SESSION_BUS_ADDRESS is not set") == true, "\(result)")
    }

    @Test func unknownArgumentIsExit64() throws {
        let session = try TestSession(capabilities: nil)
        let result = try session.run(["chimed", "--frobnicate"])
        #expect(result.status == 64)
        #expect(result.stderr == "chimed: unknown argument '--frobnicate'; see chimed --help.\n")
    }
}

@Test func clientAndDaemonReportOneVersion() throws {
    let session = try TestSession(capabilities: nil)
    let client = try session.run(["chime", "--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let daemon = try session.run(["chimed", "--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(!client.isEmpty)
    #expect(daemon == "chimed " + client)
}
