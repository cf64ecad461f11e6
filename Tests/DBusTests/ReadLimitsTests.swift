import Testing
@testable import DBus

/// Reading a received message stops at the first limit crossed, with a sentence naming it.
struct ReadLimitsTests {
    /// A signal carrying `arguments`, as a peer would send it, read within `limits`.
    func received(_ arguments: [Value], limits: ReadLimits) throws -> Message {
        let message = try Message.signal(path: try ObjectPath("/t"), interface: try InterfaceName("t.T"),
                                         member: try MemberName("S"), arguments: arguments)
        let copy = try Message.demarshal(try message.marshalled())
        copy.readLimits = limits
        return copy
    }

    func refusal(_ arguments: [Value], _ limits: ReadLimits) throws -> DBusError? {
        let message = try received(arguments, limits: limits)
        return #expect(throws: DBusError.self) { _ = try message.arguments() }
    }

    static let roomy = ReadLimits(bytes: 1 << 20, values: 1_000, depth: 8, stringBytes: 1_000)

    @Test func withinTheLimitsEverythingIsRead() throws {
        let arguments: [Value] = [.string("org.freedesktop.Notifications"), .string(":1.7"), .string(""),
                                  .variantDictionary([("k", .variantDictionary([("n", .int32(1))]))])]
        #expect(try received(arguments, limits: Self.roomy).arguments() == arguments)
    }

    @Test func tooManyValues() throws {
        var limits = Self.roomy
        limits.values = 10
        let error = try refusal([.stringArray((0..<20).map { "\($0)" })], limits)
        #expect(error?.name == DBusError.invalidArgsName)
        #expect(error?.message == "The message holds more than 10 values, the most this service reads from one message.")
    }

    @Test func tooLongAString() throws {
        var limits = Self.roomy
        limits.stringBytes = 16
        let error = try refusal([.string(String(repeating: "x", count: 17))], limits)
        #expect(error?.message == "A string in the message is longer than 16 bytes, the most this service reads in one string.")
        #expect(try received([.string(String(repeating: "x", count: 16))], limits: limits).arguments().count == 1)
    }

    @Test func tooDeep() throws {
        var limits = Self.roomy
        limits.depth = 3
        var value = Value.int32(1)
        for _ in 0..<4 { value = .variant(value) }
        let error = try refusal([value], limits)
        #expect(error?.message == "The message nests containers more than 3 deep, the most this service reads.")
    }

    @Test func tooLarge() throws {
        var limits = Self.roomy
        limits.bytes = 1_000
        let error = try refusal([.string(String(repeating: "x", count: 600)), .string(String(repeating: "y", count: 600))], limits)
        #expect(error?.message == "The message is larger than 1000 bytes, the most this service reads from one message.")
    }

    /// An array too large for what is left is refused from its length on the wire, before
    /// one element is read: here the byte limit speaks, though walking the array would
    /// have crossed the value limit after 100 elements.
    @Test func aHugeArrayIsRefusedBeforeItIsWalked() throws {
        let limits = ReadLimits(bytes: 1_000, values: 100, depth: 8, stringBytes: 1_000)
        let error = try refusal([.array(element: "i", (0..<10_000).map { .int32($0) })], limits)
        #expect(error?.message == "The message is larger than 1000 bytes, the most this service reads from one message.")
    }

    @Test func theFirstArgumentAloneIsReadWithinTheLimits() throws {
        var limits = Self.roomy
        limits.values = 5
        let message = try received([.string("first"), .stringArray((0..<100).map { "\($0)" })], limits: limits)
        #expect(try message.firstArgument() == .string("first"))
        #expect(throws: DBusError.self) { _ = try message.arguments() }
    }

    @Test func unlimitedIsTheDefault() throws {
        let message = try Message.demarshal(try Message.signal(
            path: try ObjectPath("/t"), interface: try InterfaceName("t.T"), member: try MemberName("S"),
            arguments: [.stringArray((0..<10_000).map { "\($0)" })]).marshalled())
        #expect(message.readLimits == .unlimited)
        #expect(try message.arguments().first?.arrayElements?.count == 10_000)
    }
}
