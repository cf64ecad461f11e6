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
        // "" is hasAction = NO: kept, so Chime adds no "View" of its own.
        #expect(alert.defaultAction == "")
        #expect(alert.allActions.map(\.key) == ["done", "later"])
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

/// What one request may carry, and numbers JSON (the store) cannot hold.
struct AlertDecodingLimitTests {
    func typedError(_ entries: [(String, Value)]) -> DBusError? {
        #expect(throws: DBusError.self) {
            _ = try AlertDecoding.decode(typed: [("title", .variant(.string("T")))] + entries.map { ($0.0, .variant($0.1)) })
        }
    }

    func stringError(_ options: [(String, String)], title: String = "T") -> DBusError? {
        #expect(throws: DBusError.self) { _ = try AlertDecoding.decode(title: title, body: "", options: options) }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersAreInvalidArgsNamingTheKey(number: Double) {
        let hint = typedError([("hints", .variantDictionary([("x-level", .double(number))]))])
        #expect(hint?.name == DBusError.invalidArgsName)
        #expect(hint?.message == "hints.x-level: is \(number); a number must be finite.")
        let info = typedError([("userInfo", .variantDictionary([("ratio", .double(number))]))])
        #expect(info?.name == DBusError.invalidArgsName)
        #expect(info?.message == "userInfo.ratio: is \(number); a number must be finite.")
        // The string form: a hint typed double.
        let text = stringError([("hint.x-level", "double:\(number)")])
        #expect(text?.message.hasPrefix("hint.x-level:") == true, "\(text?.message ?? "")")
    }

    @Test func nonFiniteNumbersInScheduleFieldsAreRefused() {
        for number in [Double.nan, .infinity] {
            var fields = ScheduleFields()
            #expect(throws: FieldError.self) { _ = try fields.set("lateLimit", typed: .double(number)) }
            #expect(throws: FieldError.self) { _ = try fields.set("every", typed: .double(number)) }
        }
    }

    @Test func theAlertItselfRefusesNonFiniteNumbers() {
        var alert = Alert(title: "T")
        alert.userInfo["x"] = .double(.nan)
        #expect(throws: FieldError("userInfo.x", "is nan; a number must be finite.")) { try alert.validate() }
        alert.userInfo = [:]
        alert.hints = [.custom(name: "y", .double(.infinity))]
        #expect(throws: FieldError("hints.y", "is inf; a number must be finite.")) { try alert.validate() }
    }

    @Test func atTheLimitsIsAccepted() throws {
        let alert = try AlertDecoding.decode(typed: [
            ("title", .variant(.string(String(repeating: "t", count: RequestLimits.titleBytes)))),
            ("actions", .variant(.array(element: "(ss)", (0..<RequestLimits.actions).map {
                .structure([.string("k\($0)"), .string("Button \($0)")])
            }))),
            ("hints", .variant(.variantDictionary((0..<RequestLimits.hints).map { ("x-\($0)", .int32(Int32($0))) }))),
            ("userInfo", .variant(.variantDictionary((0..<RequestLimits.userInfo).map { ("k\($0)", .string("v")) }))),
        ])
        #expect(alert.actions.count == RequestLimits.actions)
        #expect(alert.hints.count == RequestLimits.hints)
        #expect(alert.userInfo.count == RequestLimits.userInfo)
    }

    @Test func overTheLimitsIsInvalidArgsNamingTheLimit() {
        let actions = typedError([("actions", .array(element: "(ss)", (0...RequestLimits.actions).map {
            .structure([.string("k\($0)"), .string("B")])
        }))])
        #expect(actions?.message == "actions: has more than 10 buttons, the most one notification may have.")
        let hints = typedError([("hints", .variantDictionary((0...RequestLimits.hints).map { ("x-\($0)", .int32(1)) }))])
        #expect(hints?.message == "hints: has more than 32 hints, the most one notification may have.")
        let info = typedError([("userInfo", .variantDictionary((0...RequestLimits.userInfo).map { ("k\($0)", .int32(1)) }))])
        #expect(info?.message == "userInfo: has more than 64 entries, the most one notification may have.")
        let title = typedError([("title", .string(String(repeating: "t", count: 1025)))])
        #expect(title?.message == "title: is 1025 bytes long; a title may have at most 1024.")

        // The string form counts the same way.
        #expect(stringError((0...RequestLimits.actions).map { ("action.k\($0)", "B") })?.message
                == "actions: has more than 10 buttons, the most one notification may have.")
        #expect(stringError((0...RequestLimits.hints).map { ("hint.x-\($0)", "int:1") })?.message
                == "hints: has more than 32 hints, the most one notification may have.")
        #expect(stringError((0...RequestLimits.userInfo).map { ("userInfo.k\($0)", "v") })?.message
                == "userInfo: has more than 64 entries, the most one notification may have.")
        #expect(stringError([], title: String(repeating: "é", count: 513))?.message
                == "title: is 1026 bytes long; a title may have at most 1024.")
    }
}

struct NotifyArgumentsTests {
    @Test func argumentsFollowTheSpecification() {
        var alert = Alert(title: "T")
        alert.body = "1 < 2"
        alert.image = "dialog-information"
        alert.sound = .file("/tmp/a.oga")
        alert.category = "im.received"
        alert.hints = [.custom(name: "urgency", .int32(9)), .transient(true)]
        let request = NotifyArguments(alert: alert, capabilities: ["body"])
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

    @Test func imageFilesGoAsFileURIsAndIconNamesAsTheyAre() {
        var alert = Alert(title: "T")
        alert.image = "/tmp/tea time.png"
        let file = NotifyArguments(alert: alert, capabilities: ["body"])
        #expect(Dictionary(uniqueKeysWithValues: file.hints)["image-path"] == .string("file:///tmp/tea%20time.png"))
        #expect(file.arguments[2] == .string("file:///tmp/tea%20time.png"))
        alert.image = "dialog-information"
        let named = NotifyArguments(alert: alert, capabilities: ["body"])
        #expect(Dictionary(uniqueKeysWithValues: named.hints)["image-path"] == .string("dialog-information"))
    }

    @Test func markupServersGetEscapedBodies() {
        var alert = Alert(title: "T")
        alert.body = "<b>&"
        #expect(NotifyArguments(alert: alert, capabilities: ["body-markup"]).body == "&lt;b&gt;&amp;")
        #expect(NotifyArguments(alert: alert, capabilities: []).body == "<b>&")
        alert.body = "\"quoted\""
        #expect(NotifyArguments(alert: alert, capabilities: ["body-markup"]).body == "&quot;quoted&quot;")
    }

    @Test func buttonsGoAsIconsOnlyWhenTheServerAndEveryButtonHaveOne() {
        var alert = Alert(title: "T")
        alert.defaultAction = "Open"
        alert.actions = [Action(key: "later", label: "Later", options: ActionOptions(icon: "alarm-symbolic")),
                         Action(key: "done", label: "Done", options: ActionOptions(icon: "object-select-symbolic"))]
        let icons = NotifyArguments(alert: alert, capabilities: ["actions", "action-icons"])
        #expect(icons.arguments[5] == .stringArray(["default", "Open", "alarm-symbolic", "Later", "object-select-symbolic", "Done"]))
        #expect(Dictionary(uniqueKeysWithValues: icons.hints)["action-icons"] == .bool(true))
        #expect(icons.keysByIdentifier == ["alarm-symbolic": "later", "object-select-symbolic": "done"])

        let plain = NotifyArguments(alert: alert, capabilities: ["actions"])
        #expect(plain.arguments[5] == .stringArray(["default", "Open", "later", "Later", "done", "Done"]))
        #expect(Dictionary(uniqueKeysWithValues: plain.hints)["action-icons"] == nil)
        #expect(plain.keysByIdentifier.isEmpty)

        // The hint makes the server read every identifier as an icon: one button without an
        // icon, or two with the same one, keeps them all as keys.
        var partial = alert
        partial.actions[1].options = nil
        #expect(!NotifyArguments(alert: partial, capabilities: ["actions", "action-icons"]).sendsActionIcons)
        var same = alert
        same.actions[1].options = ActionOptions(icon: "alarm-symbolic")
        #expect(!NotifyArguments(alert: same, capabilities: ["actions", "action-icons"]).sendsActionIcons)
    }
}
