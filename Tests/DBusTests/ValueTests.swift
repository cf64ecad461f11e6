import Testing
@testable import DBus

/// Values survive a trip through libdbus's marshalling, in memory (no bus).
struct ValueTests {
    static let samples: [Value] = [
        .byte(255), .bool(true), .bool(false), .int16(-2), .uint16(65535), .int32(Int32.min), .uint32(UInt32.max),
        .int64(Int64.min), .uint64(UInt64.max), .double(-0.5), .string(""), .string("Grüße, 世界 🎉"),
        .objectPath(try! ObjectPath("/io/github/chime/Chime")), .signature("a{sv}"),
        .array(element: "s", []), .array(element: "a{sv}", []), .stringArray(["a", "b"]),
        .variantDictionary([]), .variantDictionary([("urgency", .byte(2)), ("nested", .variantDictionary([("x", .int32(1))]))]),
        .stringDictionary([("k", "v"), ("k2", "")]),
        .array(element: "(ss)", [.structure([.string("done"), .string("Done")])]),
        .structure([.int32(1), .variant(.variant(.string("deep")))]),
        .dictionary(key: "u", value: "as", [DictionaryEntry(key: .uint32(7), value: .stringArray([]))]),
    ]

    @Test(arguments: samples)
    func roundTripsThroughMarshalling(value: Value) throws {
        let message = try Message.signal(path: try ObjectPath("/t"), interface: try InterfaceName("t.T"),
                                         member: try MemberName("S"), arguments: [value, .string("after")])
        let copy = try Message.demarshal(try message.marshalled())
        #expect(copy.signature == value.signature.rawValue + "s")
        #expect(try copy.arguments() == [value, .string("after")])
    }

    @Test func emptyContainersKeepTheirElementType() throws {
        let message = try Message.signal(path: try ObjectPath("/t"), interface: try InterfaceName("t.T"),
                                         member: try MemberName("S"), arguments: [.variantDictionary([]), .array(element: "(ss)", [])])
        #expect(message.signature == "a{sv}a(ss)")
    }

    @Test(arguments: [
        Value.string("a\0b"),
        .array(element: "s", [.int32(1)]),
        .dictionary(key: "s", value: "v", [DictionaryEntry(key: .string("k"), value: .string("not a variant"))]),
        .structure([]),
        .variantDictionary([("k", .string("nul\0inside"))]),
        .array(element: "ss", []),
    ])
    func invalidValuesAreRejectedBeforeLibdbus(value: Value) throws {
        #expect(throws: DBusError.self) {
            _ = try Message.signal(path: try ObjectPath("/t"), interface: try InterfaceName("t.T"),
                                   member: try MemberName("S"), arguments: [value])
        }
    }

    @Test func readingAnotherTypeGivesNilNotACrash() throws {
        let message = try Message.signal(path: try ObjectPath("/t"), interface: try InterfaceName("t.T"),
                                         member: try MemberName("S"), arguments: [.int32(5)])
        let value = try #require(try message.arguments().first)
        #expect(value.stringValue == nil)
        #expect(value.stringKeyedEntries == nil)
        #expect(value.arrayElements == nil)
        #expect(value.integerValue == 5)
    }

    @Test func malformedBytesAreAnError() {
        #expect(throws: DBusError.self) { _ = try Message.demarshal([0x6c, 0x01, 0x00, 0x01, 0xff, 0xff]) }
        #expect(throws: DBusError.self) { _ = try Message.demarshal([]) }
    }

    @Test func errorReplyWithBadNameFallsBackInsteadOfAborting() throws {
        let unsent = try Message.methodCall(destination: nil, path: try ObjectPath("/t"), interface: nil, member: try MemberName("M"))
        // libdbus aborts on a reply to a message without a serial.
        #expect(unsent.makeErrorReply(.failed("x")) == nil)
        #expect(throws: DBusError.self) { _ = try unsent.makeReply() }

        let call = try Message.demarshal(try unsent.marshalled())
        let reply = try #require(call.makeErrorReply(DBusError(name: "not a name", message: "has\0nul")))
        #expect(reply.errorName == "org.freedesktop.DBus.Error.Failed")
        #expect(reply.error?.message == "hasnul")
    }
}

/// Names are validated before libdbus sees them (it aborts the process otherwise).
struct NameTests {
    @Test(arguments: ["", "a", "/a/", "/a//b", "/a-b", "/a\0b", "//"])
    func invalidObjectPaths(path: String) {
        #expect(throws: DBusError.self) { _ = try ObjectPath(path) }
    }

    @Test(arguments: ["", "a", "1a.b", ".a.b", "a..b", "io.github.chime\0.Chime", String(repeating: "a.", count: 200) + "a"])
    func invalidBusNames(name: String) {
        #expect(throws: DBusError.self) { _ = try BusName(name) }
    }

    @Test(arguments: ["", "a", "a..b", "1.b", "a.b-c", "a.b\0"])
    func invalidInterfaces(name: String) {
        #expect(throws: DBusError.self) { _ = try InterfaceName(name) }
    }

    @Test(arguments: ["", "1a", "a.b", "a-b", "a\0"])
    func invalidMembers(name: String) {
        #expect(throws: DBusError.self) { _ = try MemberName(name) }
    }

    @Test(arguments: ["a{", "z", "a", "(", "s\0"])
    func invalidSignatures(text: String) {
        #expect(throws: DBusError.self) { _ = try Signature(text) }
    }

    @Test func validNamesPass() throws {
        #expect(try ObjectPath("/").rawValue == "/")
        #expect(try ObjectPath("/io/github/chime/Chime").rawValue == "/io/github/chime/Chime")
        #expect(try BusName(":1.42").isUnique)
        #expect(try !BusName("io.github.chime.Chime").isUnique)
        #expect(try InterfaceName("io.github.chime.Scheduler1").rawValue == "io.github.chime.Scheduler1")
        #expect(try MemberName("PresentNow").rawValue == "PresentNow")
        let signature = "sa{sv}"
        #expect(try Signature(signature).rawValue == signature)
    }

    @Test func matchRuleQuotesApostrophes() throws {
        let rule = MatchRule(member: try MemberName("X"), arg0: "it's")
        #expect(rule.text == "type='signal',member='X',arg0='it'\\''s'")
    }
}
