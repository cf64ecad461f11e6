import DBus
import Logging

/// One service on the system bus that place triggers read (GeoClue, NetworkManager):
/// follows who owns its name, and makes its calls and signal subscriptions.
///
/// Calls go to the owner's unique name, and signals are taken only from it: any client
/// can send a signal to us directly, and a stale reply from an owner that left must not
/// count for the next one.
final class SystemService {
    let name: BusName
    private let connection: Connection
    private var ownerWatch: NameOwnerWatch?

    /// The unique name of the current owner; nil while the service is not on the bus.
    var owner: String? { ownerWatch?.owner }
    /// The owner changed (nil: the service left the bus).
    var onOwnerChanged: (String?) -> Void = { _ in }

    init(_ name: BusName, connection: Connection) {
        self.name = name
        self.connection = connection
    }

    /// Follows the name: asks for its owner now and listens for `NameOwnerChanged`.
    func follow() {
        ownerWatch = NameOwnerWatch(name, on: connection, changed: { [unowned self] owner in
            self.onOwnerChanged(owner)
        }, absent: { [unowned self] in
            // Not on the bus (yet); NameOwnerChanged says when it comes.
            self.onOwnerChanged(nil)
        })
    }

    /// Whether `message` comes from the current owner.
    func isFromOwner(_ message: Message) -> Bool {
        owner != nil && message.sender == owner
    }

    /// Calls `member` on the current owner; `reply` gets the arguments, or why not
    /// (also when the owner changed before the answer).
    func call(_ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [Value] = [],
              reply: @escaping (Result<[Value], DBusError>) -> Void) {
        guard let owner else { return reply(.failure(DBusError(name: DBusError.nameHasNoOwnerName, message: "\(name) is not on the bus."))) }
        let message: Message
        do {
            message = try Message.methodCall(destination: try BusName(owner), path: path, interface: try InterfaceName(interface),
                                             member: try MemberName(member), arguments: arguments)
        } catch {
            return reply(.failure(error))
        }
        connection.call(message, timeoutMilliseconds: 10_000) { [weak self] result in
            guard let self, self.owner == owner else { return reply(.failure(.failed("\(self?.name.rawValue ?? "") left the bus."))) }
            reply(result.flatMap { answer in
                do throws(DBusError) { return .success(try answer.arguments()) } catch { return .failure(error) }
            })
        }
    }

    /// Reads one property (`org.freedesktop.DBus.Properties.Get`).
    func property(_ path: ObjectPath, _ interface: String, _ property: String, reply: @escaping (Result<Value, DBusError>) -> Void) {
        call(path, "org.freedesktop.DBus.Properties", "Get", [.string(interface), .string(property)]) { result in
            reply(result.flatMap { args in
                args.first.map { .success($0.unwrapped) } ?? .failure(.failed("Get \(property) answered nothing."))
            })
        }
    }

    /// Reads every property of one interface (`GetAll`), by name.
    func properties(_ path: ObjectPath, _ interface: String, reply: @escaping (Result<[String: Value], DBusError>) -> Void) {
        call(path, "org.freedesktop.DBus.Properties", "GetAll", [.string(interface)]) { result in
            reply(result.map { args in
                var values: [String: Value] = [:]
                for (key, value) in args.first?.stringKeyedEntries ?? [] { values[key] = value.unwrapped }
                return values
            })
        }
    }

    /// Sets one property (`org.freedesktop.DBus.Properties.Set`).
    func setProperty(_ path: ObjectPath, _ interface: String, _ property: String, _ value: Value,
                     reply: @escaping (Result<[Value], DBusError>) -> Void) {
        call(path, "org.freedesktop.DBus.Properties", "Set", [.string(interface), .string(property), .variant(value)], reply: reply)
    }

    /// Calls `handler` for the signal `member` of `interface` at `path` sent by the current
    /// owner, until the subscription goes.
    func subscribe(_ path: ObjectPath, _ interface: String, _ member: String, arg0: String? = nil,
                   handler: @escaping ([Value]) -> Void) -> Subscription? {
        guard let interfaceName = try? InterfaceName(interface), let memberName = try? MemberName(member) else { return nil }
        return connection.subscribe(MatchRule(sender: name, path: path, interface: interfaceName, member: memberName, arg0: arg0)) {
            [weak self] message in
            guard let self, self.isFromOwner(message), let args = try? message.arguments() else { return }
            handler(args)
        }
    }
}
