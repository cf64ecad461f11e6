/// A bus match rule for signals, built from validated parts.
public struct MatchRule: Sendable, Equatable {
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
        "'" + value.replacingAll("'", with: "'\\''") + "'"
    }

    /// Whether `message` is one this rule asks for.
    ///
    /// A well-known sender cannot be checked here, since signals carry the unique name
    /// of whoever owned it: the bus has already filtered on it, and owners that care
    /// (a notification client) compare the unique name themselves.
    public func matches(_ message: Message) -> Bool {
        guard message.kind == .signal else { return false }
        if let sender, sender.isUnique, message.sender != sender.rawValue { return false }
        if let path, message.path != path.rawValue { return false }
        if let interface, message.interface != interface.rawValue { return false }
        if let member, message.member != member.rawValue { return false }
        if let arg0 {
            guard let first = try? message.arguments().first, first.stringValue == arg0 else { return false }
        }
        return true
    }
}

extension String {
    /// Replaces every occurrence of `target`, without Foundation.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
