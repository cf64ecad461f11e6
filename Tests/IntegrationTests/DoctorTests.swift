import Foundation
import Testing
import TestSupport

/// `chime doctor` on private buses set up to be healthy, degraded or broken.
@Suite(.timeLimit(.minutes(10)))
struct DoctorTests {
    /// The keys `chime doctor --json` documents, in order.
    static let topKeys = ["healthy", "exitStatus", "problems", "warnings", "bus", "chimed", "config", "notificationServer", "badges",
                          "places", "calendars"]
    static let chimedKeys = ["running", "activatable", "owner", "pid", "process", "version", "interface", "interfaceMismatch", "store",
                             "scheduled", "pending", "nextFire", "timeZone", "notificationServer", "capabilitiesKnown", "capabilities",
                             "localSound", "lastLocalSound", "backup", "recovery"]
    static let serverKeys = ["running", "activatable", "owner", "pid", "process", "name", "vendor", "version", "specVersion",
                             "capabilities", "fallbacks", "quirks", "queuedOwners", "activationFiles", "unofferedActivationFiles"]

    /// A directory of its own for each run: the service directories doctor scans and the
    /// runtime directory, so nothing of the machine's (Debian's dunst file, a real
    /// $XDG_RUNTIME_DIR/bus) decides a result.
    final class Scratch {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chime-doctor-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url.appendingPathComponent("runtime"), withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }
        var runtime: String { url.appendingPathComponent("runtime").path }
        var dataDirs: String { url.appendingPathComponent("share").path }

        /// Writes an activation file into the scanned data directory.
        func addServiceFile(_ name: String, busName: String) throws {
            let directory = url.appendingPathComponent("share/dbus-1/services")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try "[D-BUS Service]\nName=\(busName)\nExec=/bin/false\n"
                .write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
    }

    /// Runs `chime doctor` on `session`'s bus, with `changes` to its environment (nil unsets).
    func doctor(_ session: TestSession, _ arguments: [String] = [], scratch: Scratch,
                changes: [String: String?] = [:]) throws -> ProcessResult {
        var environment = session.environment
        environment["XDG_RUNTIME_DIR"] = scratch.runtime
        environment["XDG_DATA_DIRS"] = scratch.dataDirs
        environment["DISPLAY"] = nil
        for (key, value) in changes { environment[key] = value }
        let chime = binDirectory.appendingPathComponent("chime").path
        return try Spawned([chime, "doctor"] + arguments, environment: environment).finish(timeout: 60)
    }

    func json(_ result: ProcessResult) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try #require(object as? [String: Any], "\(result)")
    }

    /// The keys of a JSON object in the order doctor wrote them.
    func keys(of text: String, at depth: Int) -> [String] {
        var keys: [String] = []
        for line in text.split(separator: "\n") where line.prefix(while: { $0 == " " }).count == depth * 2 {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("\""), let end = trimmed.dropFirst().firstIndex(of: "\"") else { continue }
            keys.append(String(trimmed[trimmed.index(after: trimmed.startIndex)..<end]))
        }
        return keys
    }

    /// The text with runs of spaces folded, so checks do not depend on column widths.
    func folded(_ text: String) -> String {
        text.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }.joined(separator: "\n")
    }

    func nameHasOwner(_ session: TestSession, _ name: String) throws -> Bool {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                                      "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.NameHasOwner", name])
        return result.stdout.contains("true")
    }

    @Test func healthyBusReportsServerAndDaemon() throws {
        let session = try TestSession(capabilities: "body actions sound")
        let scratch = try Scratch()
        #expect(try session.run(["chime", "add", "One", "--in", "1h"]).status == 0)
        #expect(try session.run(["chime", "add", "Two", "--in", "2h"]).status == 0)
        let version = try session.run(["chime", "--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 0, "\(result)")
        let text = folded(result.stdout)
        #expect(text.contains("server: mock-notify 1.0 by test vendor, specification 1.1"), "\(result)")
        #expect(text.contains("capabilities: body actions sound"), "\(result)")
        #expect(text.contains("running: yes, pid \(try session.daemonPID()) (chimed)"), "\(result)")
        #expect(text.contains("version: \(version), interface io.github.chime.Scheduler1"), "\(result)")
        // Its time reads as chime list writes times (today, or tomorrow near midnight).
        #expect(text.contains(/scheduled: 2, next at (today|tomorrow) \d\d:\d\d \(/), "\(result)")
        #expect(text.contains("(\(session.timeZone))"), "\(result)")
        #expect(!text.contains("without actions"), "\(result)")
        #expect(text.contains("Config\nfile: \(session.configFile.path)\ncategories: 1: reminder\napp settings: for no app\n"), "\(result)")
        #expect(text.hasSuffix("Healthy."), "\(result)")

        let jsonResult = try doctor(session, ["--json"], scratch: scratch)
        #expect(jsonResult.status == 0, "\(jsonResult)")
        #expect(keys(of: jsonResult.stdout, at: 1) == Self.topKeys)
        let report = try json(jsonResult)
        #expect(report["healthy"] as? Bool == true)
        #expect(report["exitStatus"] as? Int == 0)
        #expect((report["problems"] as? [String])?.isEmpty == true)
        let chimed = try #require(report["chimed"] as? [String: Any])
        #expect(Set(chimed.keys) == Set(Self.chimedKeys))
        #expect(chimed["running"] as? Bool == true)
        #expect(chimed["version"] as? String == version)
        #expect(chimed["interface"] as? String == "io.github.chime.Scheduler1")
        #expect(chimed["scheduled"] as? Int == 2)
        #expect(chimed["pending"] as? Int == 0)
        #expect(chimed["pid"] as? Int == Int(try session.daemonPID()))
        #expect(chimed["process"] as? String == "chimed")
        #expect(chimed["timeZone"] as? String == session.timeZone)
        #expect(chimed["store"] as? String == session.dataDirectory.appendingPathComponent("chime.sqlite").path)
        let list = try session.run(["chime", "list", "--json"]).stdout
        let first = try #require((try JSONSerialization.jsonObject(with: Data(list.utf8)) as? [[String: Any]])?.first)
        #expect(chimed["nextFire"] as? String == first["nextFireLocal"] as? String)

        let server = try #require(report["notificationServer"] as? [String: Any])
        #expect(Set(server.keys) == Set(Self.serverKeys))
        #expect(server["name"] as? String == "mock-notify")
        #expect(server["vendor"] as? String == "test vendor")
        #expect(server["capabilities"] as? [String] == ["body", "actions", "sound"])
        #expect((server["fallbacks"] as? [[String: String]])?.compactMap { $0["capability"] } == ["body-markup", "persistence"])
        // No server the matrix has run calls itself mock-notify.
        #expect((server["quirks"] as? [Any])?.isEmpty == true)
        #expect(server["process"] as? String == "python3")
        #expect(chimed["notificationServer"] as? String == server["owner"] as? String)
        let bus = try #require(report["bus"] as? [String: Any])
        #expect(bus["address"] as? String == session.address)
        #expect(bus["addressSource"] as? String == "DBUS_SESSION_BUS_ADDRESS")
        #expect((report["badges"] as? [String: Any])?["listeners"] as? [Any] != nil)
        let config = try #require(report["config"] as? [String: Any])
        #expect(config["file"] as? String == session.configFile.path)
        #expect(config["errors"] as? [String] == [])
    }

    /// Each error of the config is named by file and line in a Config section, and keeps
    /// doctor unhealthy until the file is fixed and read again.
    @Test func aConfigWithErrorsIsUnhealthyAndNamesEachByLine() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        try session.writeConfig("""
            [Category broken]
            Actions=complete;nosuch;

            [Category todo]
            Actions=complete;

            [App org.example.Bills]
            Badges=false
            """)
        #expect(try session.run(["chime", "list"]).status == 0)
        let path = session.configFile.path
        let error = "\(path):2: [Category broken] Actions lists 'nosuch', which is not an action: define [Action nosuch], or use "
            + "complete or remind; the category shows its other buttons."
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 1, "\(result)")
        let text = folded(result.stdout)
        #expect(text.contains("""
            Config
            file: \(path)
            categories: 3: broken, reminder, todo
            app settings: for 1 app
            error: \(error)
            """), "\(result)")
        #expect(text.contains("The config has 1 error, listed under Config: what it names is left out. Fix it, then have chimed "
            + "read the file again: 'systemctl --user reload chimed.service' (or 'kill -HUP \(try session.daemonPID())')."), "\(result)")
        #expect(text.hasSuffix("Unhealthy: 1 problem."), "\(result)")

        let jsonResult = try doctor(session, ["--json"], scratch: scratch)
        #expect(jsonResult.status == 1, "\(jsonResult)")
        let report = try json(jsonResult)
        let config = try #require(report["config"] as? [String: Any])
        #expect(config["file"] as? String == path)
        #expect(config["categories"] as? [String] == ["broken", "reminder", "todo"])
        #expect(config["appSettings"] as? Int == 1)
        #expect(config["errors"] as? [String] == [error])
        #expect((report["problems"] as? [String])?.first?.hasPrefix("The config has 1 error") == true, "\(report)")

        // Fixed and read again, the section is clean and doctor healthy.
        try session.writeConfig("[Category todo]\nActions=complete;\n")
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForDaemonLog(containing: "2 categories, 0 app settings, 0 errors.")
        #expect(try doctor(session, scratch: scratch).status == 0)
    }

    @Test func serverWithoutActionsOrSoundSaysWhatChimeDoesInstead() throws {
        let session = try TestSession(capabilities: "body")
        let scratch = try Scratch()
        #expect(try session.run(["chime", "list"]).status == 0)
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("without actions:"), "\(result)")
        #expect(result.stdout.contains("chime act ID ACTION"), "\(result)")
        #expect(result.stdout.contains("without sound:"), "\(result)")
        #expect(result.stdout.contains("libcanberra"), "\(result)")
        let fallbacks = try #require(try json(try doctor(session, ["--json"], scratch: scratch))["notificationServer"] as? [String: Any])["fallbacks"]
        #expect((fallbacks as? [[String: String]])?.compactMap { $0["capability"] } == ["actions", "sound", "body-markup", "persistence"])
    }

    @Test func withoutANotificationServerNothingCanShowThem() throws {
        let session = try TestSession(capabilities: nil)
        let scratch = try Scratch()
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("Nothing can show notifications"), "\(result)")
        #expect(result.stdout.hasSuffix("Unhealthy: 1 problem.\n"), "\(result)")
        let report = try json(try doctor(session, ["--json"], scratch: scratch))
        #expect(report["healthy"] as? Bool == false)
        #expect(report["exitStatus"] as? Int == 1)
        #expect((report["problems"] as? [String])?.first?.hasPrefix("Nothing can show notifications") == true)
    }

    @Test func doctorDoesNotStartChimed() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("chimed is not running; the bus starts it on first use"), "\(result)")
        #expect(result.stdout.contains("systemctl --user enable --now chimed.service"), "\(result)")
        let chimed = try #require(try json(try doctor(session, ["--json"], scratch: scratch))["chimed"] as? [String: Any])
        #expect(chimed["running"] as? Bool == false)
        #expect(chimed["activatable"] as? Bool == true)
        #expect(chimed["version"] is NSNull)
        #expect(try !nameHasOwner(session, "io.github.chime.Chime"))
    }

    @Test func withoutABusAddressAndNoUserBusItIsExit69() throws {
        let session = try TestSession(capabilities: nil)
        let scratch = try Scratch()
        let result = try doctor(session, scratch: scratch, changes: ["DBUS_SESSION_BUS_ADDRESS": nil])
        #expect(result.status == 69, "\(result)")
        #expect(result.stdout.contains("No session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no bus socket at $XDG_RUNTIME_DIR/bus"),
                "\(result)")
        #expect(result.stdout.contains("export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus"), "\(result)")
        let report = try json(try doctor(session, ["--json"], scratch: scratch, changes: ["DBUS_SESSION_BUS_ADDRESS": nil]))
        #expect(report["exitStatus"] as? Int == 69)
        #expect((report["bus"] as? [String: Any])?["connected"] as? Bool == false)
        #expect(report["chimed"] is NSNull)
    }

    @Test func withoutABusAddressTheUserBusIsFoundWithAWarning() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        // The per-user bus of a systemd session: a socket at $XDG_RUNTIME_DIR/bus.
        let socket = try #require(session.address.split(separator: ",").first?.split(separator: "=", maxSplits: 1).last)
        try FileManager.default.createSymbolicLink(atPath: scratch.runtime + "/bus", withDestinationPath: String(socket))
        let result = try doctor(session, scratch: scratch, changes: ["DBUS_SESSION_BUS_ADDRESS": nil])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("(from XDG_RUNTIME_DIR)"), "\(result)")
        #expect(result.stdout.contains("DBUS_SESSION_BUS_ADDRESS is not set; chime and chimed find the per-user bus"), "\(result)")
        #expect(result.stdout.contains("export DBUS_SESSION_BUS_ADDRESS=unix:path=\(scratch.runtime)/bus"), "\(result)")
    }

    @Test func twoActivationFilesTheBusOffersAreAWarning() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        // Files where the bus looks (its own service directory), then made known to it.
        let services = session.directory.appendingPathComponent("services")
        for name in ["org.example.Dunst", "org.example.Mako"] {
            try "[D-BUS Service]\nName=org.freedesktop.Notifications\nExec=/bin/false\n"
                .write(to: services.appendingPathComponent(name + ".service"), atomically: true, encoding: .utf8)
        }
        try scratch.addServiceFile("org.example.Other.service", busName: "org.example.Other")
        #expect(try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                                 "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.ReloadConfig"]).status == 0)
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 0, "\(result)")
        let files = "\(services.path)/org.example.Dunst.service, \(services.path)/org.example.Mako.service"
        #expect(result.stdout.contains("Two notification servers are registered"), "\(result)")
        #expect(result.stdout.contains(files), "\(result)")
        #expect(result.stdout.contains("the bus picks one of them arbitrarily"), "\(result)")
        #expect(!result.stdout.contains("org.example.Other.service"), "\(result)")
    }

    /// mako's and xfce4-notifyd's files next to dunst's, where this bus does not look,
    /// as on a machine with several servers installed and a session bus of its own.
    @Test func activationFilesTheBusDoesNotReadAreNoWarning() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        try scratch.addServiceFile("org.example.Dunst.service", busName: "org.freedesktop.Notifications")
        try scratch.addServiceFile("org.example.Mako.service", busName: "org.freedesktop.Notifications")
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdout.contains("Two notification servers"), "\(result)")
        #expect(result.stdout.contains("org.example.Mako.service") && result.stdout.contains("(not offered by this bus)"), "\(result)")
        let server = try #require(try json(try doctor(session, ["--json"], scratch: scratch))["notificationServer"] as? [String: Any])
        #expect((server["activationFiles"] as? [String]) == [])
        // The machine's own files (Debian's dunst, say) may be listed as well.
        let unoffered = server["unofferedActivationFiles"] as? [String] ?? []
        #expect(unoffered.contains("\(scratch.dataDirs)/dbus-1/services/org.example.Mako.service"), "\(unoffered)")
    }

    @Test func aSecondServerQueuedForTheNameIsAWarning() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        // A second server that waits in the queue for the name instead of replacing the first.
        // Under a name longer than the 15 bytes of /proc/PID/comm.
        let program = scratch.url.appendingPathComponent("a-long-notification-server").path
        try FileManager.default.createSymbolicLink(atPath: program, withDestinationPath: "/usr/bin/python3")
        let second = try session.spawn([program, "-c", """
            import dbus, signal
            reply = dbus.SessionBus().request_name('org.freedesktop.Notifications', 0)
            print('queued' if reply == dbus.bus.REQUEST_NAME_REPLY_IN_QUEUE else 'reply %d' % reply, flush=True)
            signal.pause()
            """])
        defer { second.stop() }
        #expect(second.stdout.wait(timeout: 60) { $0.contains("\n") })
        #expect(second.stdout.text == "queued\n", "\(second.stderr.text)")
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Two notification servers are running"), "\(result)")
        #expect(result.stdout.contains("a-long-notification-server ("), "\(result)")
        let server = try #require(try json(try doctor(session, ["--json"], scratch: scratch))["notificationServer"] as? [String: Any])
        #expect((server["queuedOwners"] as? [String])?.count == 2)
    }

    @Test func aHungServerCostsSecondsNotTheDefaultTimeout() throws {
        let session = try TestSession(capabilities: nil)
        let scratch = try Scratch()
        // Owns the name but never reads its messages: every call to it goes unanswered.
        let hung = try session.spawn(["/usr/bin/python3", "-c", """
            import dbus, signal
            dbus.SessionBus().request_name('org.freedesktop.Notifications', 0)
            print('owned', flush=True)
            signal.pause()
            """])
        defer { hung.stop() }
        #expect(hung.stdout.wait(timeout: 60) { $0.contains("owned\n") }, "\(hung.stderr.text)")
        let start = Date()
        let result = try doctor(session, scratch: scratch)
        #expect(Date().timeIntervalSince(start) < 15, "\(result)")
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("The notification server (python3, pid \(hung.process.processIdentifier)) does not answer within 3 s"),
                "\(result)")
    }

    @Test func doctorReportsTheMismatchAsAProblem() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        // A chimed from before Status, as an upgrade leaves it running.
        let old = try session.spawn(["/usr/bin/python3", "-m", "dbusmock", "--session", "io.github.chime.Chime",
                                     "/io/github/chime/Chime", "io.github.chime.Scheduler1"])
        defer { old.stop() }
        try session.waitForName("io.github.chime.Chime")
        #expect(try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                                 "--method", "org.freedesktop.DBus.Mock.AddProperty", "io.github.chime.Scheduler1", "Version",
                                 "<'0.1.0'>"]).status == 0)
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("The running chimed 0.1.0"), "\(result)")
        #expect(result.stdout.contains("(it has no method Status)"), "\(result)")
        #expect(result.stdout.contains("0.1.0, another version of the interface"), "\(result)")
    }

    @Test func doctorComparesWhatADaemonOfTheSameVersionServes() throws {
        let session = try TestSession()
        let scratch = try Scratch()
        let version = try session.run(["chime", "--version"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // Built from other sources with the same version number: its Status answers, but
        // it lacks the methods this chime calls.
        let other = try session.spawn(["/usr/bin/python3", "-m", "dbusmock", "--session", "io.github.chime.Chime",
                                       "/io/github/chime/Chime", "io.github.chime.Scheduler1"])
        defer { other.stop() }
        try session.waitForName("io.github.chime.Chime")
        #expect(try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                                 "--method", "org.freedesktop.DBus.Mock.AddMethod", "io.github.chime.Scheduler1", "Status", "", "a{sv}",
                                 "ret = {'version': dbus.String('\(version)', variant_level=1)}"]).status == 0)
        let result = try doctor(session, scratch: scratch)
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("The running chimed \(version) (pid "), "\(result)")
        #expect(result.stdout.contains("speaks another version of io.github.chime.Scheduler1 than this chime \(version) "
            + "(it has no method PresentNow, and "), "\(result)")
        #expect(result.stdout.contains("\(version), another version of the interface"), "\(result)")
    }

    /// A system bus that takes the connection and never answers costs doctor seconds:
    /// libdbus's own connect would wait for its side of the authentication for ever.
    @Test func aSystemBusThatNeverAnswersIsNotReachable() throws {
        let wedged = try WedgedBus()
        let session = try TestSession()
        let result = try doctor(session, scratch: try Scratch(), changes: ["DBUS_SYSTEM_BUS_ADDRESS": wedged.address])
        #expect(folded(result.stdout).contains("system bus: not reachable"), "\(result)")
        #expect(!result.stdout.contains("GeoClue"), "\(result)")
        #expect(wedged.process.process.isRunning, "the socket listened throughout")
    }

    @Test func helpHasAnExample() throws {
        let session = try TestSession(capabilities: nil)
        let result = try session.run(["chime", "doctor", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("chime doctor --json"))
        #expect(result.stdout.contains("69  no session bus"))
    }
}
