import ChimeCore
import Foundation
import Testing

struct AlertTests {
    @Test(arguments: [("low", Urgency.low), ("Normal", .normal), ("CRITICAL", .critical)])
    func urgencyNames(name: String, urgency: Urgency) throws {
        #expect(try Urgency(name: name) == urgency)
    }

    @Test func unknownUrgencyNamesTheField() {
        #expect(throws: FieldError("urgency", "'urgent' is not one of low, normal, critical.")) { try Urgency(name: "urgent") }
    }

    @Test(arguments: [
        ("none", Sound.none), ("default", .themed("alarm-clock-elapsed")), ("bell", .themed("bell")),
        ("/usr/share/sounds/x.oga", .file("/usr/share/sounds/x.oga")), ("file:///tmp/a.wav", .file("/tmp/a.wav")),
    ])
    func soundWords(text: String, sound: Sound) throws {
        #expect(try Sound(parsing: text) == sound)
    }

    @Test(arguments: [
        ("x", "int:42", Hint.custom(name: "x", .int32(42))),
        ("x", "double:1.5", .custom(name: "x", .double(1.5))),
        ("x", "string:a:b", .custom(name: "x", .string("a:b"))),
        ("x", "byte:255", .custom(name: "x", .byte(255))),
        ("x", "boolean:true", .custom(name: "x", .boolean(true))),
        ("transient", "boolean:1", .transient(true)),
        ("resident", "bool:false", .resident(false)),
    ])
    func hintsParseLikeNotifySend(name: String, text: String, hint: Hint) throws {
        #expect(try Hint.parse(name: name, typedValue: text) == hint)
    }

    @Test(arguments: ["int:many", "int:99999999999", "byte:256", "double:nan", "boolean:maybe", "float:1", "novalue"])
    func badHintsNameTheHint(text: String) {
        let error = #expect(throws: FieldError.self) { try Hint.parse(name: "x", typedValue: text) }
        #expect(error?.field == "hint.x")
    }

    /// The store keeps an alert as JSON without the fields at their defaults, and reads
    /// both that and the whole form earlier versions wrote.
    @Test func theStoredFormLeavesDefaultsOutAndReadsTheWholeFormToo() throws {
        let plain = Alert(title: "Stretch")
        #expect(String(decoding: try JSONEncoder().encode(plain), as: UTF8.self) == #"{"title":"Stretch"}"#)
        let whole = #"{"sound":{"serverDefault":{}},"actions":[],"hints":[],"body":"","title":"Stretch","appName":"Chime","userInfo":{},"urgency":1}"#
        #expect(try JSONDecoder().decode(Alert.self, from: Data(whole.utf8)) == plain)

        var full = Alert(title: "Pills")
        full.body = "Two, with water"
        full.urgency = .critical
        full.appName = "Pillbox"
        full.desktopEntry = "org.example.Pillbox"
        full.image = "pills"
        full.sound = .themed("bell")
        full.category = "reminder"
        full.actions = [Action(key: "done", label: "Done")]
        full.defaultAction = ""
        full.expires = 0
        full.badge = 0
        full.hints = [.transient(true)]
        full.userInfo = ["dose": .integer(2)]
        full.textDomain = "pillbox"
        #expect(try JSONDecoder().decode(Alert.self, from: try JSONEncoder().encode(full)) == full)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Alert.self, from: Data(#"{"body":"no title"}"#.utf8)) }
    }

    @Test func defaultActionComesFirst() {
        var alert = Alert(title: "T")
        alert.actions = [Action(key: "done", label: "Done")]
        alert.defaultAction = "Open"
        #expect(alert.allActions.map(\.key) == ["default", "done"])
    }

    @Test func validationNamesTheField() {
        #expect(throws: FieldError("title", "must not be empty.")) { try Alert(title: "").validate() }
        var twice = Alert(title: "T")
        twice.actions = [Action(key: "a", label: "A"), Action(key: "a", label: "B")]
        #expect(throws: FieldError("actions", "the action key 'a' appears twice.")) { try twice.validate() }
        var expires = Alert(title: "T")
        expires.expires = -5
        #expect((try? expires.validate()) == nil)
    }
}
