/// A bus match rule for signals, built from validated parts.
///
/// The bus uses the rule to choose what to send, but a signal with a destination (a
/// unicast signal) reaches its destination whatever the rules say, from any client.
/// So ``matches(_:)`` checks the message again, and the sender is the part that
/// matters: a rule naming `org.freedesktop.DBus` takes only what the bus itself sent,
/// and a rule naming a unique name only what that connection sent. A rule naming any
/// other well-known name cannot be checked here (see ``matches(_:)``): its subscriber
/// must compare the message's unique-name sender with the name's current owner itself.
public struct MatchRule: Sendable, Equatable {
    /// Who sent the signal. Checked on every message for the bus and for unique names
    /// only; see the type's discussion for other well-known names.
    public var sender: BusName?
    public var path: ObjectPath?
    public var interface: InterfaceName?
    public var member: MemberName?
    /// The first argument, when it is a string (as in `NameOwnerChanged`'s name).
    public var arg0: String?

    public init(
        sender: BusName? = nil, path: ObjectPath? = nil, interface: InterfaceName? = nil,
        member: MemberName? = nil, arg0: String? = nil
    ) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arg0 = arg0
    }

    /// The rule in the bus's text form.
    public var text: String {
        var parts = ["type='signal'"]
        if let sender { parts.append("sender=" + Self.quote(sender.rawValue)) }
        if let path { parts.append("path=" + Self.quote(path.rawValue)) }
        if let interface { parts.append("interface=" + Self.quote(interface.rawValue)) }
        if let member { parts.append("member=" + Self.quote(member.rawValue)) }
        if let arg0 { parts.append("arg0=" + Self.quote(arg0)) }
        return parts.joined(separator: ",")
    }

    /// Quotes a value; a quote inside is closed, escaped and reopened, as the
    /// specification's match-rule grammar requires (commas are safe inside quotes).
    static func quote(_ value: String) -> String {
        // Names never hold a quote: only a value (arg0) may.
        guard value.utf8.contains(UInt8(ascii: "'")) else { return "'" + value + "'" }
        return "'" + value.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }

    /// Whether `message` is one this rule asks for.
    ///
    /// The bus's own signals carry the sender `org.freedesktop.DBus`, which no client can
    /// claim (the bus writes every client's unique name as its sender), so a forged
    /// `NameOwnerChanged` sent straight to us is refused here. A well-known sender other
    /// than the bus cannot be checked: signals carry the unique name of whoever owned it
    /// when sending, and only the subscriber knows whom it follows (a notification
    /// client compares the unique name of the server it talks to).
    public func matches(_ message: Message) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, sender.isUnique || sender == Self.bus, message.sender != sender.rawValue { return false }
        if let path, message.path != path.rawValue { return false }
        if let interface, message.interface != interface.rawValue { return false }
        if let member, message.member != member.rawValue { return false }
        if let arg0 {
            guard let first = try? message.firstArgument(), first.stringValue == arg0 else { return false }
        }
        return true
    }

    /// The message bus itself, the sender of `NameOwnerChanged` and the other bus signals.
    static let bus = BusName(rawValue: "org.freedesktop.DBus")!
}
