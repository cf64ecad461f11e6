import CDBus

/// A D-Bus error: a dotted error name and a sentence a person can act on.
///
/// The same type carries errors a peer replied with, errors this process replies with,
/// and local failures (an invalid name, a lost connection), so callers handle one thing.
public struct DBusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The error name, e.g. `org.freedesktop.DBus.Error.InvalidArgs`.
    public let name: String
    /// The human-readable sentence.
    public let message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { message.isEmpty ? name : message }

    /// Arguments of the wrong type, an unknown key, a value out of range.
    public static func invalidArgs(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.InvalidArgs", message: message)
    }

    /// A generic failure of the operation.
    public static func failed(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Failed", message: message)
    }

    /// The connection is gone, or could not be made.
    public static func disconnected(_ message: String) -> DBusError {
        DBusError(name: "org.freedesktop.DBus.Error.Disconnected", message: message)
    }

    /// Converts a filled-in libdbus error and frees it.
    static func take(_ error: inout CDBus.DBusError) -> DBusError {
        defer { dbus_error_free(&error) }
        let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = error.message.map { String(cString: $0) } ?? ""
        return DBusError(name: name, message: message)
    }

    public static let invalidArgsName = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let unknownMethodName = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownPropertyName = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let serviceUnknownName = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let noReplyName = "org.freedesktop.DBus.Error.NoReply"
    public static let nameHasNoOwnerName = "org.freedesktop.DBus.Error.NameHasNoOwner"
}

/// Runs `body` with a fresh libdbus error, for the validators and blocking calls.
func withLibDBusError<R>(_ body: (UnsafeMutablePointer<CDBus.DBusError>) -> R) -> (R, DBusError?) {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    let result = body(&error)
    if dbus_error_is_set(&error) != 0 {
        return (result, DBusError.take(&error))
    }
    return (result, nil)
}
