import ChimeAPI
import DBus
import Foundation
import Testing
@testable import chime

/// Telling a daemon of another interface version from bad input, by its introspection.
struct InterfaceMismatchTests {
    static let contract: String = {
        // This file is Tests/chimeTests/Doctor/InterfaceMismatchTests.swift: the root is four levels up.
        let root = (0..<4).reduce(URL(fileURLWithPath: #filePath)) { url, _ in url.deletingLastPathComponent() }
        return (try? String(contentsOf: root.appendingPathComponent("dbus/io.github.chime.Scheduler1.xml"), encoding: .utf8)) ?? ""
    }()

    /// As dbus-python writes it: single-quoted attributes, a named node, a child node.
    static let older = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
        "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node name='/io/github/chime/Chime'>
          <interface name='io.github.chime.Scheduler1'>
            <method name='ScheduleSimple'><arg direction='in' type='s' name='when'/><arg direction='out' type='s'/></method>
            <method name='List'/>
            <property name='Version' type='s' access='read'/>
          </interface>
          <node name='child'><interface name='io.github.chime.Child'><method name='X'/></interface></node>
        </node>
        """

    @Test func theContractFileHasEveryMethodAsDeclared() throws {
        let node = try #require(IntrospectedNode(xml: Self.contract))
        let methods = try #require(node.interfaces["io.github.chime.Scheduler1"])
        #expect(methods == Dictionary(uniqueKeysWithValues: Scheduler1.methods.map { ($0.name.rawValue, $0.inputSignature) }))
        #expect(InterfaceMismatch.differences(node, in: Scheduler1.methods).isEmpty)
        #expect(methods["NextFireTimes"] == "sa{ss}u")
        // Signals are not methods; comments (which mention method names) are skipped.
        #expect(methods["Fired"] == nil)
    }

    @Test func readsOtherWritersAndSkipsChildNodes() throws {
        let node = try #require(IntrospectedNode(xml: Self.older))
        #expect(node.interfaces["io.github.chime.Scheduler1"] == ["ScheduleSimple": "s", "List": ""])
        #expect(node.interfaces["io.github.chime.Child"] == nil)
    }

    @Test(arguments: [
        "", "not xml", "<node><interface name='x'>", "<node></interface>", "<interface name='x'/>",
        "<node/><node/>", "<node><!-- never ended </node>", "<node name='a></node>", "<node name=a/>",
        "<node a='1' a='2'/>", "<node><method name='x'/></nod>", "<!DOCTYPE node \"unended",
    ])
    func textThatIsNotIntrospectionIsNone(text: String) {
        #expect(IntrospectedNode(xml: text) == nil)
    }

    @Test func readsWhatTheSpecificationAllows() throws {
        let node = try #require(IntrospectedNode(xml: """
            <?xml version="1.0"?>
            <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN" "a>b">
            <node>
              <!-- <interface name="commented.Out"><method name="Hidden"/></interface> -->
              <interface name="a.B"><annotation name="x" value="&lt;&amp;&gt;"/>
                <method name="Default"><arg type="s"/><arg type="a{sv}" direction="in"/><arg type="u" direction="out"/></method>
                <method name="Quoted"><arg type="a&#123;ss&#x7D;" direction='in'/></method>
                <signal name="Fired"><arg type="s"/></signal>
              </interface>
              <interface name="c.Empty"/>
              <interface name="d.E"><method name="After"/></interface>
            </node>
            """))
        #expect(node.interfaces == ["a.B": ["Default": "sa{sv}", "Quoted": "a{ss}"], "c.Empty": [:], "d.E": ["After": ""]])
    }

    @Test func differencesNameWhatIsMissingAndWhatTakesOtherArguments() throws {
        let node = try #require(IntrospectedNode(xml: Self.older))
        #expect(InterfaceMismatch.differences(node, in: [Scheduler1.list, Scheduler1.scheduleSimple, Scheduler1.status]) == [
            "its ScheduleSimple takes (s), this chime sends (sssa{ss})", "it has no method Status",
        ])
        let mismatch = InterfaceMismatch(node, methods: Scheduler1.methods)
        #expect(mismatch.implementsInterface == true)
        #expect(mismatch.detail == "it has no method PresentNow, and \(Scheduler1.methods.count - 2) more of its methods differ")
    }

    /// One error reply to a call of `member` and what the daemon's introspection says.
    struct Example: Sendable, CustomTestStringConvertible {
        var error: String, message: String, member: String, introspection: String?, mismatch: Bool
        init(_ error: String, _ message: String, _ member: String, _ introspection: String?, mismatch: Bool) {
            (self.error, self.message, self.member, self.introspection, self.mismatch) = (error, message, member, introspection, mismatch)
        }
        var testDescription: String {
            "\(error.split(separator: ".").last ?? "") '\(message)' on \(member)" + (introspection == nil ? " without introspection" : "")
        }
    }

    static let cases: [Example] = [
        Example(DBusError.unknownMethodName, "No method 'Status'", "Status", older, mismatch: true),
        Example("org.freedesktop.DBus.Error.UnknownInterface", "", "List", nil, mismatch: true),
        Example("org.freedesktop.DBus.Error.UnknownObject", "", "List", nil, mismatch: true),
        // Bad input to a method this chime and the daemon agree on: a usage error.
        Example(DBusError.invalidArgsName, "when: cannot read 'never'.", "ScheduleSimple", contract, mismatch: false),
        // The same method with other argument types.
        Example(DBusError.invalidArgsName, "ScheduleSimple takes arguments of type (s), not (sssa{ss}).", "ScheduleSimple", older,
                mismatch: true),
        Example(DBusError.invalidArgsName, "", "NextFireTimes", older, mismatch: true),
        // No introspection: judged by the text.
        Example(DBusError.invalidArgsName, "ScheduleSimple takes arguments of type (s), not (sssa{ss}).", "ScheduleSimple", nil,
                mismatch: true),
        Example(DBusError.invalidArgsName, "Type of message, “(sssa{ss})”, does not match expected type “(s)”", "ScheduleSimple", nil,
                mismatch: true),
        Example(DBusError.invalidArgsName, "when: cannot read 'never'.", "ScheduleSimple", nil, mismatch: false),
        Example("io.github.chime.Error.NotFound", "No notification has the id 'x'.", "Get", older, mismatch: false),
        Example(DBusError.serviceUnknownName, "", "List", nil, mismatch: false),
    ]

    @Test(arguments: cases)
    func tellsMismatchFromBadInput(_ example: Example) throws {
        let error = DBusError(name: example.error, message: example.message)
        let method = try #require(Scheduler1.method(named: example.member))
        #expect(InterfaceMismatch.isMismatch(error, method: method, introspection: example.introspection.flatMap(IntrospectedNode.init(xml:)))
            == example.mismatch)
    }

    @Test func sentenceNamesVersionsAndFix() {
        let mismatch = InterfaceMismatch(version: "0.1.0", pid: 42, process: "chimed", implementsInterface: true, detail: "it has no method List")
        #expect(mismatch.sentence == "The running chimed 0.1.0 (pid 42) speaks another version of io.github.chime.Scheduler1 than this chime "
            + "\(chimeVersion) (it has no method List); restart it with 'systemctl --user restart chimed.service', "
            + "or 'pkill -x chimed' and let the next chime command start the new one.")
    }
}
