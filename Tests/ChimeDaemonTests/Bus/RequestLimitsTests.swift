import Testing
@testable import ChimeDaemon
@testable import DBus

/// chimed's read limits refuse floods, never what an honest peer sends.
struct RequestLimitsTests {
    /// `arguments` as chimed would receive them, read within its limits.
    func read(_ arguments: [Value]) throws -> [Value] {
        let message = try Message.signal(path: try ObjectPath("/t"), interface: try InterfaceName("t.T"),
                                         member: try MemberName("S"), arguments: arguments)
        let received = try Message.demarshal(try message.marshalled())
        received.readLimits = RequestLimits.bus
        return try received.arguments()
    }

    /// Replies and signals from the bus and from notification servers, generously sized.
    static let honest: [[Value]] = [
        // NameOwnerChanged, GetNameOwner, GetConnectionUnixProcessID.
        [.string("org.freedesktop.Notifications"), .string(":1.4242"), .string(":1.4243")],
        [.string(":1.4242")],
        [.uint32(4242)],
        // GetCapabilities, with every capability in the specification and vendor ones.
        [.stringArray(["action-icons", "actions", "body", "body-hyperlinks", "body-images", "body-markup", "icon-multi",
                       "icon-static", "persistence", "sound", "x-canonical-private-synchronous", "x-canonical-append",
                       "x-gnome-icon-buttons", "x-kde-origin-name", "x-kde-display-appname", "inhibitions"]
                      + (0..<100).map { "x-vendor-capability-\($0)" })],
        // GetServerInformation; Notify's reply; ActionInvoked; ActivationToken; NotificationClosed.
        [.string("GNOME Shell"), .string("GNOME"), .string("43.9"), .string("1.2")],
        [.uint32(7)],
        [.uint32(7), .string("default")],
        [.uint32(7), .string(String(repeating: "t", count: 512))],
        [.uint32(7), .uint32(2)],
        // systemd's StartTransientUnit reply.
        [.objectPath(try! ObjectPath("/org/freedesktop/systemd1/job/4242"))],
    ]

    @Test(arguments: honest)
    func honestRepliesAndSignalsAreRead(arguments: [Value]) throws {
        #expect(try read(arguments) == arguments)
    }

    @Test func aRequestAtEveryCountLimitFitsTheBusLimits() throws {
        let request: [Value] = [.variantDictionary([
            ("title", .string(String(repeating: "t", count: RequestLimits.titleBytes))),
            ("body", .string(String(repeating: "b", count: RequestLimits.bus.stringBytes))),
            ("when", .string("tomorrow 9:00")), ("repeat", .string("day")), ("zone", .string("America/Argentina/Buenos_Aires")),
            ("actions", .array(element: "(ss)", (0..<RequestLimits.actions).map {
                .structure([.string("action-\($0)"), .string(String(repeating: "l", count: 64))])
            })),
            ("hints", .variantDictionary((0..<RequestLimits.hints).map { ("x-hint-\($0)", .string(String(repeating: "h", count: 256))) })),
            ("userInfo", .variantDictionary((0..<RequestLimits.userInfo).map {
                ("key-\($0)", .variant(.string(String(repeating: "u", count: 2048))))
            })),
        ])]
        #expect(try read(request) == request)
    }

    @Test func aFloodIsRefusedWithTheLimitNamed() throws {
        let hints = Value.variantDictionary((0..<100_000).map { ("x-\($0)", .int32(Int32($0))) })
        #expect(throws: DBusError.invalidArgs("The message is larger than 262144 bytes, the most this service reads from one message.")) {
            _ = try read([.variantDictionary([("title", .string("T")), ("hints", hints)])])
        }
        let small = Value.variantDictionary((0..<5_000).map { ("\($0)", .byte(1)) })
        #expect(throws: DBusError.invalidArgs("The message holds more than 4096 values, the most this service reads from one message.")) {
            _ = try read([small])
        }
    }
}
