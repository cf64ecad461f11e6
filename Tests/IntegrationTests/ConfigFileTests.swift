import Foundation
import Testing
import TestSupport

/// The user's config file, read by the real chimed: categories, snooze durations, commands.
@Suite(.timeLimit(.minutes(10)))
struct ConfigFileTests {
    func writeConfig(_ session: TestSession, _ text: String) throws {
        try session.writeConfig(text)
    }

    /// Waits for a file a command writes; nothing announces it, so this looks again briefly.
    func waitForFile(_ url: URL, containing text: String) throws -> String {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if let content = try? String(contentsOf: url, encoding: .utf8), content.contains(text) { return content }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure.timeout("\(url.path) with \(text)")
    }

    @Test func configuredCommandGetsIdActionAndUserInfo() throws {
        let session = try TestSession()
        let output = session.directory.appendingPathComponent("pressed.txt")
        try writeConfig(session, """
            # The handler is the user's own program; this one records what it got.
            [Category todo]
            Actions=complete;log;

            [Action log]
            Label=Log it
            Exec=/bin/sh;-c;env | grep ^CHIME_ > \(output.path) && cat >> \(output.path) && echo done >> \(output.path)
            Timeout=10s
            """)
        let sent = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                    "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                                    "{'title': <'Invoice'>, 'category': <'todo'>, 'userInfo': <{'invoice': <int64 42>}>}"])
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init))
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'log', 'Log it']>"), "\(call)")

        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'log'>]")
        let content: String
        do { content = try waitForFile(output, containing: "done") } catch {
            Issue.record("daemon log: \(session.daemonLog)")
            throw error
        }
        #expect(content.contains("CHIME_ID=\(id)"))
        #expect(content.contains("CHIME_ACTION=log"))
        #expect(content.contains("CHIME_USER_INFO={\"invoice\":42}"))
        #expect(content.contains("{\"id\":\"\(id)\",\"action\":\"log\",\"userInfo\":{\"invoice\":42}}"), "\(content)")
    }

    /// A configured snooze fires again after its duration. Chime closes the pressed
    /// popup, so the copy is a new one; a resident popup stays, and the copy takes its place.
    @Test(arguments: [false, true])
    func configuredSnoozeFiresAgainAfterItsDuration(resident: Bool) throws {
        let session = try TestSession()
        try writeConfig(session, """
            [Category quick]
            Actions=soon;

            [Action soon]
            Label=Again in 2 s
            Snooze=2s
            """)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.run(["chime", "notify", "-p", "-c", "quick"] + (resident ? ["-h", "boolean:resident:true"] : []) + ["Kettle"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'soon'>]")
        let fired = try monitor.waitForLine(containing: "'origin': <'\(id)'>")
        #expect(fired.contains("Fired ("), "\(fired)")
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls[1].contains("<'Kettle'>"))
        #expect(calls[1].contains("<['soon', 'Again in 2 s']>"))
        #expect(calls[0].hasPrefix("[<'Chime'>, <uint32 0>,"), "\(calls[0])")
        #expect(calls[1].hasPrefix("[<'Chime'>, <uint32 \(resident ? 1 : 0)>,"), "\(calls[1])")
        #expect(try closeCalls(session) == (resident ? [] : ["1"]), "only a popup that is not resident is closed")
    }

    /// The ids of the CloseNotification calls the mock server received.
    private func closeCalls(_ session: TestSession) throws -> [String] {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications",
                                      "--object-path", "/org/freedesktop/Notifications",
                                      "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", "CloseNotification"])
        return result.stdout.components(separatedBy: ", [<").dropFirst().map { $0.prefix { $0 != ">" }.replacingOccurrences(of: "uint32 ", with: "") }
    }

    @Test func brokenConfigIsLoggedWithItsLineAndTheLastGoodOneKept() throws {
        let session = try TestSession()
        try writeConfig(session, """
            [Category todo]
            Actions=complete;
            """)
        #expect(try session.run(["chime", "list"]).status == 0)
        try writeConfig(session, """
            [Category todo]
            Actions=complete;
            this line is not a key
            """)
        let pid = try session.daemonPID()
        kill(pid, SIGHUP)
        // The reload is logged; the daemon carries on with the old categories.
        _ = try waitForLog(session, containing: "config:3:")
        #expect(try session.daemonPID() == pid)
        #expect(try session.run(["chime", "notify", "-c", "todo", "Still works"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete']>"), "\(call)")
    }

    /// The issue's config: one category lists a button that does not exist, another
    /// misspells a key. Each costs only its own group: `todo` still has its buttons, the
    /// category with the missing button keeps the one it has, and every error is named by
    /// file and line, in the log (a line each) and in `Status`.
    @Test func aBadSectionCostsOnlyThatSectionAndIsNamedByFileAndLine() throws {
        let session = try TestSession()
        try writeConfig(session, Self.oneBadSection)
        #expect(try session.run(["chime", "notify", "-c", "todo", "Invoice"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'snooze', 'Snooze 5 minutes']>"), "\(call)")
        #expect(try session.run(["chime", "notify", "-c", "broken", "Half"]).status == 0)
        let half = try #require(try session.waitForNotifyCalls(2).last)
        #expect(half.contains("<['complete', 'Complete']>"), "\(half)")

        let path = session.configFile.path
        let log = try session.waitForDaemonLog(containing: "\(path): 4 categories, 0 app settings, 2 errors.")
        let lines = log.split(separator: "\n")
        #expect(lines.contains { $0.hasSuffix("\(path):2: [Category broken] Actions lists 'nosuch', which is not an action: define "
            + "[Action nosuch], or use complete or remind; the category shows its other buttons.") }, "\(log)")
        #expect(lines.contains { $0.hasSuffix("\(path):12: [Category typo] has no key 'Actoins': its keys are Actions, MinimalActions.") },
                "\(log)")
        #expect(!log.contains("Keeping the last good config"), "\(log)")

        let status = try session.callScheduler("Status")
        #expect(status.stdout.contains("'configErrors': <[\"\(path):2: [Category broken] Actions lists 'nosuch'"), "\(status)")
        #expect(status.stdout.contains("\"\(path):12: [Category typo] has no key 'Actoins'"), "\(status)")
        #expect(status.stdout.contains("'categories': <['broken', 'quiet', 'reminder', 'todo']>"), "\(status)")
        #expect(status.stdout.contains("'config': <'\(path)'>"), "\(status)")
    }

    static let oneBadSection = """
        [Category broken]
        Actions=complete;nosuch;

        [Category todo]
        Actions=complete;snooze;

        [Action snooze]
        Label=Snooze 5 minutes
        Snooze=5m

        [Category typo]
        Actoins=complete;

        [Category quiet]
        """

    /// SIGHUP keeps the same rule: a reload with one bad group uses the rest of the file.
    @Test func aReloadWithABadSectionUsesTheRest() throws {
        let session = try TestSession()
        try writeConfig(session, "[Category todo]\nActions=complete;\n")
        #expect(try session.run(["chime", "list"]).status == 0)
        try writeConfig(session, """
            [Category todo]
            Actions=complete;log;remind;

            [Action log]
            Label=Log it
            Exec=
            """)
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForDaemonLog(containing: "2 categories, 0 app settings, 2 errors.")
        let path = session.configFile.path
        #expect(session.daemonLog.contains("\(path):6: [Action log] Exec is empty"), "\(session.daemonLog)")
        #expect(session.daemonLog.contains("\(path):2: [Category todo] Actions lists 'log', whose [Action log] (line 4) has an error"),
                "\(session.daemonLog)")
        #expect(try session.run(["chime", "notify", "-c", "todo", "Reloaded"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'remind', 'Remind in 30 minutes']>"), "\(call)")
    }

    /// chimed opens GLib only to read a config. Where it cannot be loaded, the config is
    /// named as unread, with dlopen's reason, and chimed fires with its built-in categories.
    @Test func aConfigWithoutGLibIsNamedAndChimedWorksOn() throws {
        let session = try TestSession()
        try writeConfig(session, """
            [Category todo]
            Actions=complete;
            """)
        // The dynamic loader looks in LD_LIBRARY_PATH first, and finds a file that is no library.
        let libraries = session.directory.appendingPathComponent("broken-libraries")
        try FileManager.default.createDirectory(at: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: libraries.appendingPathComponent("libglib-2.0.so.0"))
        let daemon = try session.spawnDaemon(after: ["env", "LD_LIBRARY_PATH=\(libraries.path)"])
        let named = daemon.stderr.wait(timeout: 60) { $0.contains("The config cannot be read without GLib: ") }
        #expect(named, "\(daemon.stderr.text)")
        #expect(daemon.stderr.text.contains("libglib-2.0.so.0"), "\(daemon.stderr.text)")
        try session.waitForName("io.github.chime.Chime")

        #expect(try session.run(["chime", "notify", "-c", "todo", "Still fires"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Still fires'>"), "\(call)")
        #expect(!call.contains("'complete'"), "the config's category was not read: \(call)")
        try session.stopDaemon()
        #expect(try daemon.finish().status == 0)
    }

    /// A standard category of the specification is no set of buttons of Chime's: it is passed on to the server.
    @Test func aStandardCategoryIsPassedOnToTheServer() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "notify", "-c", "email.arrived", "Mail"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Mail'>"))
        #expect(call.contains("'category': <'email.arrived'>"))
    }

    func waitForLog(_ session: TestSession, containing text: String) throws -> String {
        let deadline = Date(timeIntervalSinceNow: 30)
        while Date() < deadline {
            if session.daemonLog.contains(text) { return session.daemonLog }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure.timeout("log line with \(text); log: \(session.daemonLog)")
    }
}
