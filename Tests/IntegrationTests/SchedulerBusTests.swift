import Foundation
import TestSupport
import Testing

/// chimed's bus API called with gdbus and dbus-send, as programs and scripts would.
@Suite(.timeLimit(.minutes(10)))
struct SchedulerBusTests {
    static let target = ["--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime"]

    func gdbusCall(_ session: TestSession, _ method: String, _ arguments: String...) throws -> ProcessResult {
        try session.run(["gdbus", "call"] + Self.target + ["--method", "io.github.chime.Scheduler1." + method] + arguments)
    }

    func dbusSend(_ session: TestSession, _ method: String, _ arguments: String...) throws -> ProcessResult {
        try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime", "/io/github/chime/Chime",
                         "io.github.chime.Scheduler1." + method] + arguments)
    }

    @Test func typedPresentNowCarriesEveryField() throws {
        let session = try TestSession()
        let result = try gdbusCall(session, "PresentNow", """
            {'title': <'Tea'>, 'body': <'a < b & c'>, 'urgency': <'low'>, 'appName': <'Kettle'>,
             'desktopEntry': <'org.example.Kettle.desktop'>, 'image': <'/tmp/tea.png'>, 'sound': <'default'>,
             'defaultAction': <'Open'>, 'actions': <[('done', 'Done')]>, 'hints': <{'x-extra': <int32 7>}>,
             'userInfo': <{'task': <int64 42>}>}
            """)
        #expect(result.status == 0, "\(result)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("[<'Kettle'>, <uint32 0>, <'file:///tmp/tea.png'>, <'Tea'>, <'a < b & c'>"))
        #expect(call.contains("<['default', 'Open', 'done', 'Done']>"))
        #expect(call.contains("'urgency': <byte 0x00>"))
        #expect(call.contains("'desktop-entry': <'org.example.Kettle'>"))
        #expect(call.contains("'sound-name': <'alarm-clock-elapsed'>"))
        #expect(call.contains("'x-extra': <7>"))
    }

    @Test func bodyIsEscapedForServersThatParseMarkup() throws {
        let session = try TestSession(capabilities: "body body-markup actions")
        #expect(try gdbusCall(session, "PresentNow", "{'title': <'T'>, 'body': <'a < b & c'>}").status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'a &lt; b &amp; c'>"))
    }

    @Test func dbusSendFormCoversActionsHintsAndUserInfo() throws {
        let session = try TestSession()
        let sent = try dbusSend(session, "PresentNowSimple", "string:Tea", "string:Ready",
                                "dict:string:string:urgency,critical,action.done,Done,hint.x-n,int:5,userInfo.task,42,sound,none")
        #expect(sent.status == 0, "\(sent)")
        let id = try #require(sent.stdout.split(separator: "\"").dropFirst().first.map(String.init))

        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<['done', 'Done']>"))
        #expect(call.contains("'urgency': <byte 0x02>"))
        #expect(call.contains("'x-n': <5>"))
        #expect(call.contains("'suppress-sound': <true>"))

        let monitor = try SignalMonitor(session: session)
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 1>, <'done'>]")
        let line = try monitor.waitForLine(containing: "ActionInvoked")
        #expect(line.contains("('\(id)', 'done', {'task': <'42'>})"))
    }

    @Test func serverSignalsForForeignIdsAreIgnoredAndClosedPassesThrough() throws {
        let session = try TestSession()
        let sent = try session.run(["chime", "notify", "-p", "T"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try session.waitForNotifyCalls(1)
        let monitor = try SignalMonitor(session: session)

        // Server id 77 was never issued to chimed (another client's notification).
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 77>, <'done'>]")
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 77>, <uint32 2>]")
        try session.emitServerSignal("NotificationClosed", signature: "uu", arguments: "[<uint32 1>, <uint32 3>]")
        // Signals from one sender arrive in order: once Closed for ours is seen, the
        // foreign ones before it were handled, and must have produced nothing.
        let closed = try monitor.waitForLine(containing: "Closed")
        #expect(closed.contains("('\(id)', uint32 3)"))
        #expect(monitor.lines.filter { $0.contains("io.github.chime.Scheduler1.") }.count == 1, "\(monitor.lines)")
    }

    @Test func notificationsWaitForAServerThenArriveInOrder() throws {
        let session = try TestSession(capabilities: nil)
        let first = try session.run(["chime", "notify", "-p", "first"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try session.run(["chime", "notify", "second"]).status == 0)
        // Waiting, and visible as such.
        let listed = try session.run(["chime", "list"]).stdout.split(separator: "\n")
        #expect(listed.count == 3, "\(listed)")
        #expect(listed[1].hasPrefix(first + "  first  ") && listed[1].contains("  pending since "), "\(listed)")
        try session.startNotificationServer(capabilities: "body actions")
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls.count == 2)
        #expect(calls[0].contains("<'first'>"))
        #expect(calls[1].contains("<'second'>"))
    }

    /// Due with no server: List gives a pending one by the time it came due, before what is
    /// still to come, and Get says pending too, as List does.
    @Test func aPendingOneIsListedByTheTimeItCameDueAndGetSaysPending() throws {
        let session = try TestSession(capabilities: nil)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let later = try session.add("Later", "--in", "1h")
        let due = try session.add("Due", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(due)'")
        let listed = try session.listedJSON()
        #expect(listed.map { $0["id"] as? String } == [due, later], "\(listed)")
        #expect(listed.first?["state"] as? String == "pending")
        let dueAt = try #require(listed.first?["nextFire"] as? Int, "\(listed)")
        #expect(dueAt <= Int(Date().timeIntervalSince1970), "when it came due: \(dueAt)")
        let shown = try session.shownJSON(due)
        #expect(shown["state"] as? String == "pending", "\(shown)")
        #expect(shown["nextFire"] as? Int == dueAt, "\(shown)")
    }

    @Test(arguments: [
        ("{'title': <'T'>, 'colour': <'red'>}", "colour: is not a notification field"),
        ("{'body': <'no title'>}", "title: must not be empty."),
        ("{'title': <42>}", "title: must be a string, not type 'i'."),
        ("{'title': <'T'>, 'urgency': <byte 9>}", "urgency: byte 9 is not 0 (low), 1 (normal) or 2 (critical)."),
        ("{'title': <'T'>, 'actions': <['done']>}", "actions: must be an array of (key, label) pairs a(ss)"),
        ("{'title': <'T'>, 'userInfo': <{'when': <[1, 2]>}>}", "userInfo.when: has type 'ai'"),
        ("{'title': <'T'>, 'expires': <'soon'>}", "expires: must be an integer number of milliseconds"),
        ("{'title': <'T'>, 'actions': <[('a', 'A'), ('a', 'B')]>}", "the action key 'a' appears twice."),
    ])
    func badTypedInputIsInvalidArgsNamingTheKey(notification: String, sentence: String) throws {
        let session = try TestSession()
        #expect(try gdbusCall(session, "PresentNow", "{'title': <'warm-up'>}").status == 0)
        let pid = try session.pid(of: "io.github.chime.Chime")

        let result = try gdbusCall(session, "PresentNow", notification)
        #expect(result.status != 0)
        #expect(result.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), "\(result)")
        #expect(result.stderr.contains(sentence), "\(result)")
        // Still the same daemon, still answering.
        #expect(try session.pid(of: "io.github.chime.Chime") == pid)
    }

    @Test func wrongArgumentTypesFromDbusSendAreInvalidArgs() throws {
        let session = try TestSession()
        let wrong = try dbusSend(session, "PresentNow", "string:Tea")
        #expect(wrong.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: PresentNow takes arguments of type (a{sv}), not (s)."),
                "\(wrong)")
        let badHint = try dbusSend(session, "PresentNowSimple", "string:T", "string:B", "dict:string:string:hint.x,float:1")
        #expect(badHint.stderr.contains("hint.x: unknown hint type 'float'"), "\(badHint)")
        let titleTwice = try dbusSend(session, "PresentNowSimple", "string:T", "string:B", "dict:string:string:title,X")
        #expect(titleTwice.stderr.contains("title: is given as an argument of its own"), "\(titleTwice)")
        let unknown = try dbusSend(session, "NoSuchMethod")
        #expect(unknown.stderr.contains("org.freedesktop.DBus.Error.UnknownMethod"), "\(unknown)")
        #expect(try dbusSend(session, "PresentNowSimple", "string:T", "string:B", "dict:string:string:").status == 0)
    }

    @Test func introspectionEqualsTheContractFile() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "notify", "start"]).status == 0)
        let result = try session.run(["dbus-send", "--session", "--print-reply=literal", "--dest=io.github.chime.Chime",
                                      "/io/github/chime/Chime", "org.freedesktop.DBus.Introspectable.Introspect"])
        #expect(result.status == 0, "\(result)")
        let live = Self.interfaceElement(result.stdout, name: "io.github.chime.Scheduler1")
        let file = try String(contentsOf: packageRoot.appendingPathComponent("dbus/io.github.chime.Scheduler1.xml"), encoding: .utf8)
        let contract = Self.interfaceElement(Self.withoutComments(file), name: "io.github.chime.Scheduler1")
        #expect(!live.isEmpty)
        #expect(live == contract)
    }

    /// The integers of a gdbus reply such as `([int64 1, 2],)` or `({'a': <int64 1>},)`, in order.
    static func integers(_ text: String) -> [Int] {
        text.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }.filter { $0 > 1_000_000_000 }
    }

    @Test func nextFireTimestampsAreTheInstantsOfNextFireTimes() throws {
        let session = try TestSession()
        let texts = try gdbusCall(session, "NextFireTimes", "2030-01-31 09:00", "{'repeat': 'month'}", "3")
        let numbers = try gdbusCall(session, "NextFireTimestamps", "2030-01-31 09:00", "{'repeat': 'month'}", "3")
        #expect(texts.stdout == "(['2030-01-31T09:00:00+01:00', '2030-02-28T09:00:00+01:00', '2030-03-31T09:00:00+02:00'],)\n", "\(texts)")
        #expect(numbers.stdout.hasPrefix("([int64 "), "\(numbers)")
        #expect(Self.integers(numbers.stdout) == [1_896_076_800, 1_898_496_000, 1_901_170_800], "\(numbers)")
        let bad = try gdbusCall(session, "NextFireTimestamps", "2030-01-31 09:00", "{}", "0")
        #expect(bad.stderr.contains("InvalidArgs: count: must be between 1 and 1000."), "\(bad)")
    }

    @Test func statusGivesEachInstantAlsoAsUnixTime() throws {
        let session = try TestSession()
        let id = try session.add("Later", "--at", "2030-01-31 09:00")
        #expect(id.count == 8)
        let status = try gdbusCall(session, "Status")
        #expect(status.stdout.contains("'nextFire': <'2030-01-31T09:00:00+01:00'>"), "\(status)")
        #expect(status.stdout.contains("'nextFireTimestamp': <int64 1896076800>"), "\(status)")
    }

    @Test func versionPropertyAndPeerPing() throws {
        let session = try TestSession()
        let version = try session.run(["gdbus", "call"] + Self.target + ["--method", "org.freedesktop.DBus.Properties.Get",
                                                                          "io.github.chime.Scheduler1", "Version"])
        let daemonVersion = try session.run(["chimed", "--version"]).stdout.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(version.stdout.contains("<'\(daemonVersion ?? "?")'>"), "\(version)")
        let ping = try session.run(["gdbus", "call"] + Self.target + ["--method", "org.freedesktop.DBus.Peer.Ping"])
        #expect(ping.status == 0, "\(ping)")
    }

    /// The `<interface name=…>…</interface>` element, with blank lines and indentation folded.
    static func interfaceElement(_ xml: String, name: String) -> String {
        guard let start = xml.range(of: "<interface name=\"\(name)\">"),
              let end = xml.range(of: "</interface>", range: start.upperBound..<xml.endIndex) else { return "" }
        return xml[start.lowerBound..<end.upperBound]
            .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    static func withoutComments(_ xml: String) -> String {
        var text = xml
        while let open = text.range(of: "<!--"), let close = text.range(of: "-->", range: open.upperBound..<text.endIndex) {
            text.removeSubrange(open.lowerBound..<close.upperBound)
        }
        return text
    }
}
