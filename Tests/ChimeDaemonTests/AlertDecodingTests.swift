import ChimeCore
import DBus
import Testing
@testable import ChimeDaemon

struct AlertDecodingTests {
    @Test func typedFormSetsEveryField() throws {
        let alert = try AlertDecoding.decode(typed: [
            ("title", .variant(.string("Tea"))), ("body", .variant(.string("Ready"))), ("urgency", .variant(.byte(2))),
            ("appName", .variant(.string("Kettle"))), ("desktopEntry", .variant(.string("org.example.Kettle.desktop"))),
            ("sound", .variant(.string("none"))), ("defaultAction", .variant(.string("Open"))), ("expires", .variant(.uint32(500))),
            ("actions", .variant(.array(element: "(ss)", [.structure([.string("done"), .string("Done")])]))),
            ("userInfo", .variant(.variantDictionary([("n", .int32(3)), ("s", .string("x")), ("b", .bool(true)), ("d", .double(0.5))]))),
        ])
        #expect(alert.title == "Tea")
        #expect(alert.urgency == .critical)
        #expect(alert.desktopEntry == "org.example.Kettle")
        #expect(alert.sound == Sound.none)
        #expect(alert.expires == 500)
        #expect(alert.allActions == [Action(key: "default", label: "Open"), Action(key: "done", label: "Done")])
        #expect(alert.userInfo == ["n": .integer(3), "s": .string("x"), "b": .boolean(true), "d": .double(0.5)])
    }

    @Test func stringFormSetsTheSameFields() throws {
        let alert = try AlertDecoding.decode(title: "Tea", body: "Ready", options: [
            ("urgency", "critical"), ("action.done", "Done"), ("action.later", "Later"), ("hint.x", "int:5"),
            ("userInfo.task", "42"), ("expires", "500"), ("defaultAction", ""),
        ])
        #expect(alert.urgency == .critical)
        #expect(alert.actions.map(\.key) == ["done", "later"])
        #expect(alert.hints == [.custom(name: "x", .int32(5))])
        #expect(alert.userInfo == ["task": .string("42")])
        #expect(alert.defaultAction == nil)
    }

    @Test(arguments: [
        ("colour", "red", "colour: is not a notification field"),
        ("urgency", "high", "urgency: 'high' is not one of low, normal, critical."),
        ("expires", "soon", "expires: 'soon' is not a whole number of milliseconds."),
        ("hint.x", "int", "hint.x: 'int' is not TYPE:VALUE"),
        ("sound", "", "sound: must not be empty; use 'none' for silence."),
    ])
    func badStringOptionsAreInvalidArgs(key: String, value: String, sentence: String) {
        let error = #expect(throws: DBusError.self) { _ = try AlertDecoding.decode(title: "T", body: "", options: [(key, value)]) }
        #expect(error?.name == DBusError.invalidArgsName)
        #expect(error?.message.hasPrefix(sentence) == true, "\(error?.message ?? "")")
    }
}

struct NotifyRequestTests {
    @Test func argumentsFollowTheSpecification() {
        var alert = Alert(title: "T")
        alert.body = "1 < 2"
        alert.image = "dialog-information"
        alert.sound = .file("/tmp/a.oga")
        alert.category = "im.received"
        alert.hints = [.custom(name: "urgency", .int32(9)), .transient(true)]
        let request = NotifyRequest(alert: alert, capabilities: ["body"])
        let args = request.arguments
        #expect(args.map(\.signature.rawValue).joined() == "susssasa{sv}i")
        #expect(args[4] == .string("1 < 2"))
        let hints = Dictionary(uniqueKeysWithValues: request.hints)
        // The typed urgency wins over a raw hint of the same name.
        #expect(hints["urgency"] == .byte(1))
        #expect(hints["sound-file"] == .string("/tmp/a.oga"))
        #expect(hints["image-path"] == .string("dialog-information"))
        #expect(hints["category"] == .string("im.received"))
        #expect(hints["transient"] == .bool(true))
        #expect(request.hints.filter { $0.0 == "urgency" }.count == 1)
    }

    @Test func markupServersGetEscapedBodies() {
        var alert = Alert(title: "T")
        alert.body = "<b>&"
        #expect(NotifyRequest(alert: alert, capabilities: ["body-markup"]).body == "&lt;b&gt;&amp;")
        #expect(NotifyRequest(alert: alert, capabilities: []).body == "<b>&")
        alert.body = "\"quoted\""
        #expect(NotifyRequest(alert: alert, capabilities: ["body-markup"]).body == "&quot;quoted&quot;")
    }
}
