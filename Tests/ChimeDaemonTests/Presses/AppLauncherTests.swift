import ChimeCore
import DBus
import EventLoop
import Foundation
import Glibc
import Testing
import TestSupport
@testable import ChimeDaemon

/// Desktop entries for the launcher, in data directories of their own.
///
/// GLib reads XDG_DATA_HOME and XDG_DATA_DIRS once, at its first lookup, for the whole
/// process: so there is one set of entries, written before any lookup, and the tests
/// that look them up run one after another.
private enum Entries {
    static let directory: URL = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("chime-apps-\(UUID().uuidString)")
        let applications = root.appendingPathComponent("data/applications")
        try! FileManager.default.createDirectory(at: applications, withIntermediateDirectories: true)
        try! FileManager.default.createDirectory(at: root.appendingPathComponent("system"), withIntermediateDirectories: true)
        func write(_ name: String, _ text: String) {
            try! text.write(to: applications.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        write("org.example.Fake.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Fake
            Exec=/bin/false
            DBusActivatable=true
            Actions=new-window;notification;

            [Desktop Action new-window]
            Name=New Window
            Exec=/bin/false

            [Desktop Action notification]
            Name=Show Notification
            Exec=/bin/false

            """)
        write("org.example.Plain.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Plain
            Exec=/bin/false
            DBusActivatable=true

            """)
        write("nodots.desktop", """
            [Desktop Entry]
            Type=Application
            Name=No dots
            Exec=/bin/false
            DBusActivatable=true

            """)
        // Writes its signal mask, then renames, so the file appears complete or not at all.
        let script = root.appendingPathComponent("launched.sh")
        try! """
            #!/bin/sh
            grep SigBlk /proc/self/status > "\(root.path)/launched.tmp"
            mv "\(root.path)/launched.tmp" "\(root.path)/launched"

            """.write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        write("org.example.Launched.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Launched
            Exec=\(script.path)

            """)
        // Writes its umask and its pid, then renames, as above.
        let placed = root.appendingPathComponent("placed.sh")
        try! """
            #!/bin/sh
            printf '%s %s\\n' "$(umask)" "$$" > "\(root.path)/placed.tmp"
            mv "\(root.path)/placed.tmp" "\(root.path)/placed"

            """.write(to: placed, atomically: true, encoding: .utf8)
        chmod(placed.path, 0o755)
        write("org.example.Placed.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Placed
            Exec=\(placed.path)

            """)
        setenv("XDG_DATA_HOME", root.appendingPathComponent("data").path, 1)
        // Only this directory: the machine's own applications stay out of the tests.
        setenv("XDG_DATA_DIRS", root.appendingPathComponent("system").path, 1)
        return root
    }()
}

@Suite(.serialized) struct AppLauncherTests {
    let session: TestSession
    let loop = EventLoop()
    let log = LogRecorder()
    let connection: Connection
    let launcher: AppLauncher

    init() throws {
        _ = Entries.directory
        session = try TestSession(capabilities: nil)
        connection = try Connection.bus(address: session.address)
        connection.attach(to: loop)
        launcher = AppLauncher(connection: connection, logger: log.logger)
    }

    /// A stand-in app on the bus: owns `name`, serves org.freedesktop.Application, and
    /// records each call as its member name and arguments.
    final class FakeApp {
        let connection: Connection
        var calls: [(member: String, arguments: [Value])] = []
        private var registration: Registration?

        init(session: TestSession, loop: EventLoop, name: String) throws {
            connection = try Connection.bus(address: session.address)
            connection.attach(to: loop)
            #expect(try connection.requestName(BusName(name)) == .owned)
            let record: (String) -> (MethodCall) throws(DBusError) -> [Value] = { member in
                { [unowned self] call throws(DBusError) in
                    self.calls.append((member, call.arguments))
                    return []
                }
            }
            registration = try connection.export([Interface(try InterfaceName("org.freedesktop.Application"), methods: [
                Method(try MemberName("Activate"), inputs: [Argument("platform_data", "a{sv}")], handler: record("Activate")),
                Method(try MemberName("ActivateAction"),
                       inputs: [Argument("action_name", "s"), Argument("parameter", "av"), Argument("platform_data", "a{sv}")],
                       handler: record("ActivateAction")),
                Method(try MemberName("Open"), inputs: [Argument("uris", "as"), Argument("platform_data", "a{sv}")],
                       handler: record("Open")),
            ])], at: try ObjectPath(AppLauncher.objectPath(forBusName: name)))
        }
    }

    /// Runs the loop until `done` holds (at most 30 s).
    func drive(until done: () -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: 30)
        while !done() {
            guard Date() < deadline else {
                Issue.record("Timed out; log: \(log.messages)")
                throw CancellationError()
            }
            try loop.runOnce(timeoutMilliseconds: 1_000)
        }
    }

    @Test func anEntryListingTheNotificationActionGetsActivateActionWithTheNotification() throws {
        let app = try FakeApp(session: session, loop: loop, name: "org.example.Fake")
        launcher.open(desktopEntry: "org.example.Fake", id: "n42", userInfo: ["plant": .string("fern"), "count": .integer(2)])
        try drive { !app.calls.isEmpty }

        let call = try #require(app.calls.first)
        #expect(call.member == "ActivateAction")
        #expect(call.arguments == [
            .string("notification"),
            .array(element: "v", [.variant(.variantDictionary([
                ("id", .string("n42")),
                ("userInfo", .variantDictionary([("count", .int64(2)), ("plant", .string("fern"))])),
            ]))]),
            .variantDictionary([("chime-notification-id", .string("n42"))]),
        ])
        #expect(log.contains("opening org.example.Fake with ActivateAction('notification')"))
    }

    @Test func anEntryWithoutTheNotificationActionIsActivated() throws {
        let app = try FakeApp(session: session, loop: loop, name: "org.example.Plain")
        launcher.open(desktopEntry: "org.example.Plain.desktop", id: "n7", userInfo: [:])
        try drive { !app.calls.isEmpty }
        #expect(app.calls.map(\.member) == ["Activate"])
        #expect(app.calls.first?.arguments == [.variantDictionary([("chime-notification-id", .string("n7"))])])
    }

    @Test func anAppThatCannotBeReachedIsLogged() throws {
        // Nobody owns the name and the test bus has no service file to start it.
        launcher.open(desktopEntry: "org.example.Plain", id: "n8", userInfo: [:])
        try drive { log.contains("did not take Activate") }
        #expect(log.contains("error: Notification n8: org.example.Plain did not take Activate"))
    }

    @Test func anActivatableEntryWhoseIdIsNoBusNameIsLogged() throws {
        launcher.open(desktopEntry: "nodots", id: "n9", userInfo: [:])
        #expect(log.contains("error: Notification n9: nodots.desktop is D-Bus activatable, but 'nodots' cannot be called"))
    }

    @Test func anOrdinaryEntryIsLaunchedWithNoSignalBlocked() throws {
        let launched = Entries.directory.appendingPathComponent("launched")
        try? FileManager.default.removeItem(at: launched)
        var appeared = false
        let watcher = try FileWatcher(loop: loop, path: launched.path) { _ in appeared = true }

        // As in chimed, which blocks these for its signalfd.
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&blocked, signal) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        launcher.open(desktopEntry: "org.example.Launched", id: "n10", userInfo: [:])
        pthread_sigmask(SIG_SETMASK, &previous, nil)

        try drive { appeared || FileManager.default.fileExists(atPath: launched.path) }
        withExtendedLifetime(watcher) {}
        #expect(try String(contentsOf: launched, encoding: .utf8) == "SigBlk:\t0000000000000000\n")
        #expect(log.contains("launched org.example.Launched from its desktop entry"))
    }

    /// GIO reports the app's own pid (not that of GLib's intermediate child), and the
    /// app gets the session's umask, set in the child only.
    @Test func anOrdinaryEntryGetsTheSessionsUmaskAndAScopeOfItsOwn() throws {
        let placed = Entries.directory.appendingPathComponent("placed")
        try? FileManager.default.removeItem(at: placed)
        let manager = try CommandRunnerTests.FakeManager(session: session, loop: loop)
        let launcher = AppLauncher(connection: connection, logger: log.logger,
                                   placement: SessionPlacement(sessionUmask: 0o027, connection: connection, logger: log.logger))
        let before = try CommandRunnerTests.currentUmask()
        launcher.open(desktopEntry: "org.example.Placed", id: "n13", userInfo: [:])
        #expect(try CommandRunnerTests.currentUmask() == before)

        var appeared = false
        let watcher = try FileWatcher(loop: loop, path: placed.path) { _ in appeared = true }
        try drive { (appeared || FileManager.default.fileExists(atPath: placed.path)) && !manager.calls.isEmpty }
        withExtendedLifetime(watcher) {}
        let fields = try String(contentsOf: placed, encoding: .utf8).split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(fields.first == "0027")
        let pid = try #require(fields.last.flatMap { UInt32($0) })
        #expect(manager.calls.first?.first == .string("app-chime-org.example.Placed-\(pid).scope"))
        #expect(manager.calls.first?[2].arrayElements?.first == .structure([.string("PIDs"), .variant(.array(element: "u", [.uint32(pid)]))]))
        #expect(log.contains("launched org.example.Placed from its desktop entry as process \(pid)."))
    }

    @Test func aMissingEntryIsLoggedAndNothingElseHappens() throws {
        launcher.open(desktopEntry: "org.example.Missing", id: "n11", userInfo: [:])
        #expect(log.contains("error: Notification n11: no desktop entry org.example.Missing.desktop in the applications directories"))
        launcher.open(desktopEntry: "../evil", id: "n12", userInfo: [:])
        #expect(log.contains("'../evil' is not a desktop entry id"))
    }

    @Test func theObjectPathFollowsTheDesktopEntrySpec() {
        #expect(AppLauncher.objectPath(forBusName: "org.example.my-app") == "/org/example/my_app")
    }
}
