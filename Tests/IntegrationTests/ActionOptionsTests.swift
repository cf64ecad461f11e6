import DBus
import EventLoop
import Foundation
import Glibc
import Testing
import TestSupport

/// Action options (UIMutableUserNotificationAction) and contexts against the real chimed:
/// the order and choice of buttons in `Notify`, and ad-hoc options over the bus.
@Suite(.timeLimit(.minutes(5)))
struct ActionOptionsTests {
    static func writeConfig(_ session: TestSession, _ text: String) throws {
        let directory = session.directory.appendingPathComponent("config/chime")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try text.write(to: directory.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    static func present(_ session: TestSession, _ notification: String) throws -> ProcessResult {
        try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                         "--method", "io.github.chime.Scheduler1.PresentNow", notification])
    }

    static let todo = """
        [Category todo]
        Actions=delete;complete;remind;
        MinimalActions=delete;remind

        [Action delete]
        Label=Delete
        Destructive=true
        """

    @Test func destructiveButtonsGoLastInNotify() throws {
        let session = try TestSession()
        try Self.writeConfig(session, Self.todo)
        #expect(try Self.present(session, "{'title': <'Tidy up'>, 'category': <'todo'>}").status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['complete', 'Complete', 'remind', 'Remind in 30 minutes', 'delete', 'Delete']>"), "\(call)")
    }

    @Test func aTransientNotificationShowsTheMinimalContext() throws {
        let session = try TestSession()
        try Self.writeConfig(session, Self.todo)
        #expect(try Self.present(session, "{'title': <'Tidy up'>, 'category': <'todo'>, 'hints': <{'transient': <true>}>}").status == 0)
        // Without MinimalActions, the first two buttons of the default context.
        #expect(try Self.present(session, "{'title': <'Pills'>, 'category': <'reminder'>, 'actions': <[('a', 'A')]>, "
            + "'hints': <{'transient': <true>}>}").status == 0)
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls[0].contains("<['remind', 'Remind in 30 minutes', 'delete', 'Delete']>"), "\(calls[0])")
        #expect(calls[1].contains("<['a', 'A', 'complete', 'Complete']>"), "\(calls[1])")
        // A button only the minimal context shows can still be pressed through the API.
        let id = try #require(try Self.present(session, "{'title': <'Later'>, 'category': <'todo'>}").stdout
            .split(separator: "'").dropFirst().first.map(String.init))
        #expect(try session.run(["chime", "act", id, "delete"]).status == 0)
    }

    @Test func adHocButtonsTakeOptionsOverTheBus() throws {
        let session = try TestSession()
        let sent = try Self.present(session, "{'title': <'Mail'>, 'actions': <[('trash', 'Trash'), ('reply', 'Reply')]>, "
            + "'actionOptions': <{'trash': {'destructive': <true>, 'authenticationRequired': <true>}, "
            + "'reply': {'activationMode': <'foreground'>}}>}")
        #expect(sent.status == 0, "\(sent)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['reply', 'Reply', 'trash', 'Trash']>"), "\(call)")
        // The string form of dbus-send, and the options kept with a scheduled notification.
        let scheduled = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime",
                                         "/io/github/chime/Chime", "io.github.chime.Scheduler1.ScheduleSimple", "string:in 1h",
                                         "string:Mail", "string:", "dict:string:string:action.trash,Trash,actionOption.trash,destructive;authenticationRequired"])
        #expect(scheduled.status == 0, "\(scheduled)")
        let id = try #require(scheduled.stdout.split(separator: "\"").dropFirst().first.map(String.init))
        let got = try session.callScheduler("Get", "'\(id)'")
        #expect(got.stdout.contains("'actionOptions': <{'trash': {'activationMode': <'background'>, 'authenticationRequired': <true>, "
            + "'destructive': <true>}}>"), "\(got)")
    }

    @Test(arguments: [
        ("'actions': <[('a', 'A')]>, 'actionOptions': <{'b': {'destructive': <true>}}>",
         "actionOptions.b: names no button of this notification's actions (a); a category's buttons take their options from the config."),
        ("'actions': <[('a', 'A')]>, 'actionOptions': <{'a': {'activationMode': <'sideways'>}}>",
         "actionOptions.a.activationMode: 'sideways' is not an action option; use background or foreground, authenticationRequired, destructive, icon=NAME."),
        ("'actions': <[('a', 'A')]>, 'actionOptions': <{'a': {'loud': <true>}}>",
         "actionOptions.a.loud: is not an action option; they are activationMode, authenticationRequired, destructive, icon."),
        ("'actions': <[('a', 'A')]>, 'actionOptions': <{'a': {'icon': <'../../etc/x'>}}>",
         "actionOptions.a.icon: '../../etc/x' is not an icon-theme name such as alarm-symbolic (no spaces, no /)."),
        ("'actions': <[('a', 'A')]>, 'actionOptions': <{'a': {'destructive': <'yes'>}}>",
         "actionOptions.a.destructive: must be a boolean, not type 's'."),
    ])
    func badOptionsAreRefusedNamingTheKey(fields: String, message: String) throws {
        let session = try TestSession()
        let result = try Self.present(session, "{'title': <'Bad'>, \(fields)}")
        #expect(result.status != 0)
        #expect(result.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(result)")
        #expect(result.stderr.contains(message), "\(result)")
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
    }

    @Test func anUnknownOptionValueInTheConfigIsReportedWithItsLine() throws {
        let session = try TestSession()
        try Self.writeConfig(session, "[Category todo]\nActions=a;\n\n[Action a]\nLabel=A\nActivationMode=sideways\n")
        #expect(try Self.present(session, "{'title': <'T'>, 'category': <'todo'>}").status == 0)
        try session.waitForDaemonLog(containing: "config:6: [Action a] ActivationMode is 'sideways'; it is background or foreground.")
        // The button is left out, and with it the only button of its category.
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("@as []"), "\(call)")
    }

    /// A server with `action-icons` shows the icon instead of the label; the press it
    /// reports names the icon, and Chime hands on the button's own key.
    @Test func iconButtonsAreMappedBackToTheirKeys() throws {
        let session = try TestSession(capabilities: "body actions action-icons")
        try Self.writeConfig(session, """
            [Category alarm]
            Actions=later;complete;

            [Action later]
            Label=Later
            Icon=alarm-symbolic
            Snooze=10m

            [Action complete]
            Icon=object-select-symbolic
            """)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let sent = try Self.present(session, "{'title': <'Wake up'>, 'category': <'alarm'>}")
        let id = try #require(sent.stdout.split(separator: "'").dropFirst().first.map(String.init), "\(sent)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['alarm-symbolic', 'Later', 'object-select-symbolic', 'Complete']>"), "\(call)")
        #expect(call.contains("'action-icons': <true>"), "\(call)")
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'alarm-symbolic'>]")
        _ = try monitor.waitForLine(containing: "ActionInvoked ('\(id)', 'later'")
    }

    @Test func aBadIconInTheConfigIsReportedWithItsLine() throws {
        let session = try TestSession()
        try Self.writeConfig(session, "[Category todo]\nActions=a;\n\n[Action a]\nLabel=A\nIcon=my icon\n")
        #expect(try Self.present(session, "{'title': <'T'>, 'category': <'todo'>}").status == 0)
        try session.waitForDaemonLog(containing: "config:6: [Action a] Icon 'my icon' is not an icon-theme name such as alarm-symbolic (no spaces, no /).")
    }
}
