import CDBus

// libdbus aborts the whole process when handed an invalid name or path (its
// "return_if_fail" checks call abort in the shipped library). Every name therefore
// enters as one of these types, validated once at the edge with libdbus's own
// validators, and the checked value travels inward.

private func validate(
    _ string: String, what: String,
    _ validator: (UnsafePointer<CChar>, UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t
) throws(DBusError) {
    // withCString would silently cut the string at an embedded NUL and validate the prefix.
    guard !string.utf8.contains(0) else {
        throw .invalidArgs("\(what) contains a NUL character.")
    }
    let (valid, error) = withLibDBusError { error in
        string.withCString { validator($0, error) }
    }
    guard valid != 0 else {
        let reason = error?.message ?? "invalid"
        throw .invalidArgs("'\(string)' is not a valid \(what): \(reason)")
    }
}

/// A validated object path such as `/io/github/chime/Chime`.
public struct ObjectPath: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ string: String) throws(DBusError) {
        try validate(string, what: "object path", dbus_validate_path)
        rawValue = string
    }
    init(unchecked: String) { rawValue = unchecked }
    public init?(rawValue: String) { try? self.init(rawValue) }
    public var description: String { rawValue }
}

/// A validated bus name, unique (`:1.42`) or well-known (`io.github.chime.Chime`).
public struct BusName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ string: String) throws(DBusError) {
        try validate(string, what: "bus name", dbus_validate_bus_name)
        rawValue = string
    }
    public init?(rawValue: String) { try? self.init(rawValue) }
    public var isUnique: Bool { rawValue.hasPrefix(":") }
    public var description: String { rawValue }
}

/// A validated interface name such as `io.github.chime.Scheduler1`.
public struct InterfaceName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ string: String) throws(DBusError) {
        try validate(string, what: "interface name", dbus_validate_interface)
        rawValue = string
    }
    public init?(rawValue: String) { try? self.init(rawValue) }
    public var description: String { rawValue }
}

/// A validated member (method or signal) name such as `PresentNow`.
public struct MemberName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ string: String) throws(DBusError) {
        try validate(string, what: "member name", dbus_validate_member)
        rawValue = string
    }
    public init?(rawValue: String) { try? self.init(rawValue) }
    public var description: String { rawValue }
}

/// A validated error name such as `io.github.chime.Error.NotFound`.
public struct ErrorName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String
    public init(_ string: String) throws(DBusError) {
        try validate(string, what: "error name", dbus_validate_error_name)
        rawValue = string
    }
    public init?(rawValue: String) { try? self.init(rawValue) }
    public var description: String { rawValue }
}

/// A validated type signature: zero or more complete types, such as `sa{sv}`.
public struct Signature: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(_ string: String) throws(DBusError) {
        guard !string.utf8.contains(0) else { throw .invalidArgs("signature contains a NUL character.") }
        let (valid, error) = withLibDBusError { error in string.withCString { dbus_signature_validate($0, error) } }
        guard valid != 0 else {
            throw .invalidArgs("'\(string)' is not a valid signature: \(error?.message ?? "invalid")")
        }
        rawValue = string
    }
    public init?(rawValue: String) { try? self.init(rawValue) }

    /// For signatures written in the source; a typo there is a programming error.
    public init(stringLiteral value: String) {
        assert(Signature(rawValue: value) != nil, "invalid signature literal '\(value)'")
        rawValue = value
    }

    /// Whether this is exactly one complete type (what an array element or variant holds).
    public var isSingleCompleteType: Bool {
        rawValue.withCString { dbus_signature_validate_single($0, nil) } != 0
    }

    public var description: String { rawValue }

    /// Built from parts already known valid; for the types this module composes itself.
    init(unchecked: String) { rawValue = unchecked }
}
