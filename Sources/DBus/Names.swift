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

/// A string checked once by one of libdbus's validators; the kind says which.
public struct ValidatedName<Kind: NameKind>: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `string`; an invalid one is an `InvalidArgs` error saying why.
    public init(_ string: String) throws(DBusError) {
        try validate(string, what: Kind.name, Kind.isValid)
        rawValue = string
    }

    public init?(rawValue: String) { try? self.init(rawValue) }

    /// Wraps a string libdbus has already validated (one read from a received message).
    init(validated: String) { rawValue = validated }

    public var description: String { rawValue }
}

/// One kind of D-Bus name, and libdbus's validator for it.
public protocol NameKind: Sendable {
    /// What the name is, for error messages ("object path").
    static var name: String { get }
    static func isValid(_ name: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t
}

public enum ObjectPathKind: NameKind {
    public static let name = "object path"
    public static func isValid(_ name: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t {
        dbus_validate_path(name, error)
    }
}

public enum BusNameKind: NameKind {
    public static let name = "bus name"
    public static func isValid(_ name: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t {
        dbus_validate_bus_name(name, error)
    }
}

public enum InterfaceNameKind: NameKind {
    public static let name = "interface name"
    public static func isValid(_ name: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t {
        dbus_validate_interface(name, error)
    }
}

public enum MemberNameKind: NameKind {
    public static let name = "member name"
    public static func isValid(_ name: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t {
        dbus_validate_member(name, error)
    }
}

public enum ErrorNameKind: NameKind {
    public static let name = "error name"
    public static func isValid(_ name: UnsafePointer<CChar>, _ error: UnsafeMutablePointer<CDBus.DBusError>) -> dbus_bool_t {
        dbus_validate_error_name(name, error)
    }
}

/// A validated object path such as `/io/github/chime/Chime`.
public typealias ObjectPath = ValidatedName<ObjectPathKind>
/// A validated bus name, unique (`:1.42`) or well-known (`io.github.chime.Chime`).
public typealias BusName = ValidatedName<BusNameKind>
/// A validated interface name such as `io.github.chime.Scheduler1`.
public typealias InterfaceName = ValidatedName<InterfaceNameKind>
/// A validated member (method or signal) name such as `PresentNow`.
public typealias MemberName = ValidatedName<MemberNameKind>
/// A validated error name such as `io.github.chime.Error.NotFound`.
public typealias ErrorName = ValidatedName<ErrorNameKind>

extension ValidatedName where Kind == BusNameKind {
    /// Whether this is a connection's unique name (`:1.42`) rather than a well-known one.
    public var isUnique: Bool { rawValue.hasPrefix(":") }
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
