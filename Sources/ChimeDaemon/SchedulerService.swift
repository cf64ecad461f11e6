import ChimeCore
import DBus
import Logging

/// `io.github.chime.Scheduler1`: the daemon's API on the bus.
///
/// ``interface`` is the one table of methods, signals and properties; the introspection
/// document and `dbus/io.github.chime.Scheduler1.xml` come from it (a test keeps the
/// file equal to what the daemon answers).
final class SchedulerService {
    static let busName = try! BusName("io.github.chime.Chime")
    static let path = try! ObjectPath("/io/github/chime/Chime")
    static let interfaceName = try! InterfaceName("io.github.chime.Scheduler1")

    private let connection: Connection
    private let server: NotificationServer
    private let logger: Logger
    /// Alerts on screen (or waiting for a server), by Chime id: their userInfo goes out
    /// with every action.
    private var presented: [String: Alert] = [:]

    init(connection: Connection, server: NotificationServer, logger: Logger) {
        self.connection = connection
        self.server = server
        self.logger = logger
        server.onAction = { [unowned self] id, key in self.actionInvoked(id: id, key: key) }
        server.onClosed = { [unowned self] id, reason in self.closed(id: id, reason: reason) }
    }

    /// The interface table.
    var interface: Interface {
        Interface(
            Self.interfaceName,
            methods: [
                Method(
                    try! MemberName("PresentNow"),
                    inputs: [Argument("notification", "a{sv}")], outputs: [Argument("id", "s")]
                ) { [unowned self] call throws(DBusError) in
                    guard let entries = call.arguments[0].stringKeyedEntries else { throw .invalidArgs("Expected a{sv}.") }
                    return [.string(self.present(try AlertDecoding.decode(typed: entries)))]
                },
                Method(
                    try! MemberName("PresentNowSimple"),
                    inputs: [Argument("title", "s"), Argument("body", "s"), Argument("options", "a{ss}")],
                    outputs: [Argument("id", "s")]
                ) { [unowned self] call throws(DBusError) in
                    guard let title = call.arguments[0].stringValue, let body = call.arguments[1].stringValue,
                          let entries = call.arguments[2].stringKeyedEntries else { throw .invalidArgs("Expected (ssa{ss}).") }
                    let options = entries.compactMap { entry in entry.value.stringValue.map { (key: entry.key, value: $0) } }
                    return [.string(self.present(try AlertDecoding.decode(title: title, body: body, options: options)))]
                },
            ],
            signals: [
                SignalDescription(
                    try! MemberName("ActionInvoked"),
                    arguments: [Argument("id", "s"), Argument("action", "s"), Argument("userInfo", "a{sv}")]
                ),
                SignalDescription(try! MemberName("Closed"), arguments: [Argument("id", "s"), Argument("reason", "u")]),
            ],
            properties: [
                Property("Version", "s") { .string(chimeVersion) },
            ]
        )
    }

    // MARK: - Methods

    private func present(_ alert: Alert) -> String {
        var id = NotificationID.random()
        while presented[id] != nil { id = NotificationID.random() }
        presented[id] = alert
        logger.info("Presenting \(id): \(alert.title)")
        server.present(alert, id: id)
        return id
    }

    // MARK: - Signals

    private func actionInvoked(id: String, key: String) {
        let userInfo = presented[id]?.userInfo ?? [:]
        logger.info("Action '\(key)' on \(id).")
        emit("ActionInvoked", [
            .string(id), .string(key),
            .variantDictionary(userInfo.sorted { $0.key < $1.key }.map { ($0.key, $0.value.dbusValue) }),
        ])
    }

    private func closed(id: String, reason: UInt32) {
        presented[id] = nil
        emit("Closed", [.string(id), .uint32(reason)])
    }

    private func emit(_ member: String, _ arguments: [Value]) {
        do {
            try connection.emit(path: Self.path, interface: Self.interfaceName, member: try MemberName(member), arguments: arguments)
        } catch {
            logger.error("Cannot emit \(member): \(error)")
        }
    }
}

/// Chime's own notification ids: short, random, and never reused by a server.
enum NotificationID {
    static func random() -> String {
        let digits = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<8).map { _ in digits[Int(generator.next() % UInt64(digits.count))] })
    }
}
