/// Follows who owns a well-known name: the bus's `NameOwnerChanged` for the name, and
/// `GetNameOwner` for an owner it had before.
///
/// The signal is believed only from the bus itself, and for this name only: the rule's
/// sender and first argument are checked on arrival (``MatchRule/matches(_:)``), since any
/// client can send one straight to this connection, and believing it would hand the name
/// to an impostor or drop a real owner. The answer to `GetNameOwner` counts only while no
/// signal has named an owner: the query goes after the subscription, so a signal that
/// came first is not older.
public final class NameOwnerWatch {
    public let name: BusName
    /// The unique name of the current owner; nil while nobody owns the name (or before
    /// the bus has said).
    public private(set) var owner: String?
    private let changed: (String?) -> Void
    private let absent: () -> Void
    private var subscription: Subscription?

    private static let interface = InterfaceName(rawValue: "org.freedesktop.DBus")!
    private static let member = MemberName(rawValue: "NameOwnerChanged")!

    /// Starts following `name` on `connection`. `changed` gets each new owner (nil: the
    /// owner left the bus); `absent` runs once when the bus first says that nobody owns
    /// the name (or cannot be asked), unless an owner came before its answer.
    public init(_ name: BusName, on connection: Connection, changed: @escaping (String?) -> Void,
                absent: @escaping () -> Void = {}) {
        self.name = name
        self.changed = changed
        self.absent = absent
        subscription = connection.subscribe(MatchRule(sender: MatchRule.bus, interface: Self.interface, member: Self.member,
                                                      arg0: name.rawValue)) { [weak self] message in
            guard let self, let args = try? message.arguments(), args.count == 3, let newOwner = args[2].stringValue else { return }
            self.update(newOwner.isEmpty ? nil : newOwner)
        }
        guard let query = try? Message.busCall("GetNameOwner", [.string(name.rawValue)]) else {
            absent()
            return
        }
        connection.call(query) { [weak self] result in
            // NameHasNoOwner is the answer while the name is not on the bus (yet).
            guard let self, self.owner == nil else { return }
            if case .success(let reply) = result, let owner = (try? reply.arguments())?.first?.stringValue {
                self.update(owner)
            } else {
                self.absent()
            }
        }
    }

    private func update(_ newOwner: String?) {
        guard newOwner != owner else { return }
        owner = newOwner
        changed(newOwner)
    }
}
