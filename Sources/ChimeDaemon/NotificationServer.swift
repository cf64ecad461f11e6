import ChimeCore
import DBus
import EventLoop
import Logging

/// The client side of `org.freedesktop.Notifications`: follows whoever owns the name,
/// learns its capabilities, posts alerts and hears their buttons.
///
/// Server ids belong to one server instance, so they never leave this type: the owner
/// speaks of Chime ids only. Servers broadcast their signals (or, like GNOME Shell and
/// dunst, send them only to the connection that called Notify), so signals for ids this
/// instance did not issue, or from anyone but the current owner, are ignored.
final class NotificationServer {
    static let busName = try! BusName("org.freedesktop.Notifications")
    static let path = try! ObjectPath("/org/freedesktop/Notifications")
    static let interface = try! InterfaceName("org.freedesktop.Notifications")

    private let connection: Connection
    private let loop: EventLoop
    private let logger: Logger
    private var subscriptions: [Subscription] = []

    /// The unique name of the current server, nil while there is none.
    private(set) var owner: String?
    /// What the current server says it can do (`actions`, `body-markup`, `sound`, …).
    private(set) var capabilities: Set<String> = []
    /// False from a new owner's arrival until its capabilities are known.
    private var ready = false
    /// Bumped on every change of owner, so replies from an old server are recognised.
    private var generation = 0
    private var chimeIDs: [UInt32: String] = [:]
    /// What is on the current server's screen, by server id: posted again if the server
    /// restarts while they still have buttons to press.
    private var onScreen: [UInt32: (id: String, alert: Alert)] = [:]
    /// Chime closes expiring notifications itself: GNOME Shell ignores expire_timeout.
    private var expiries: [UInt32: Source] = [:]
    /// Alerts waiting for a server (or for its capabilities), in arrival order.
    private var pending: [(id: String, alert: Alert)] = []

    /// Plays sounds the server cannot: set when libcanberra is there.
    var sounds: SoundPlayer?

    /// A button was pressed: Chime id and action key.
    var onAction: (String, String) -> Void = { _, _ in }
    /// A notification left the screen: Chime id and the server's reason code.
    var onClosed: (String, UInt32) -> Void = { _, _ in }

    init(connection: Connection, loop: EventLoop, logger: Logger) {
        self.connection = connection
        self.loop = loop
        self.logger = logger
    }

    /// The ids of notifications waiting for a server, oldest first.
    var waiting: [String] { pending.map(\.id) }

    /// Subscribes to the server's signals and looks for a current owner.
    func start() throws(DBusError) {
        let bus = try BusName("org.freedesktop.DBus")
        subscriptions = [
            connection.subscribe(MatchRule(
                sender: bus, interface: try InterfaceName("org.freedesktop.DBus"),
                member: try MemberName("NameOwnerChanged"), arg0: Self.busName.rawValue
            )) { [unowned self] message in
                guard let args = try? message.arguments(), args.count == 3, let newOwner = args[2].stringValue else { return }
                self.ownerChanged(to: newOwner.isEmpty ? nil : newOwner)
            },
            connection.subscribe(MatchRule(
                sender: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName("ActionInvoked")
            )) { [unowned self] message in self.actionInvoked(message) },
            connection.subscribe(MatchRule(
                sender: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName("NotificationClosed")
            )) { [unowned self] message in self.notificationClosed(message) },
        ]
        let query = try Message.methodCall(
            destination: bus, path: try ObjectPath("/org/freedesktop/DBus"),
            interface: try InterfaceName("org.freedesktop.DBus"), member: try MemberName("GetNameOwner"),
            arguments: [.string(Self.busName.rawValue)]
        )
        connection.call(query) { [unowned self] result in
            // NameHasNoOwner is the normal answer on a machine without a server yet.
            if case .success(let reply) = result, let name = (try? reply.arguments())?.first?.stringValue, self.owner == nil {
                self.ownerChanged(to: name)
            } else if self.owner == nil {
                self.logger.notice("No notification server is running; notifications wait until one appears.")
            }
        }
    }

    /// Shows `alert` now, or as soon as a server is there.
    /// Shows `alert` now, or as soon as a server is there. When the notification
    /// `replacing` is still on screen, the new one takes its place instead of stacking.
    func present(_ alert: Alert, id: String, replacing: String? = nil) {
        guard owner != nil, ready else {
            pending.append((id, alert))
            return
        }
        let replaced = replacing.flatMap { old in onScreen.first { $0.value.id == old }?.key } ?? 0
        send(alert, id: id, replacing: replaced)
    }

    // MARK: - Owner

    private func ownerChanged(to newOwner: String?) {
        guard newOwner != owner else { return }
        generation += 1
        // The old server's ids mean nothing to the new one. What it was showing with
        // buttons is posted again, ahead of anything that arrived since.
        let orphans = onScreen.sorted { $0.key < $1.key }.map(\.value).filter { !$0.alert.allActions.isEmpty }
        if !orphans.isEmpty { logger.info("Posting \(orphans.count) notifications with buttons again on the next server.") }
        pending = orphans + pending
        chimeIDs.removeAll()
        onScreen.removeAll()
        expiries.removeAll()
        owner = newOwner
        capabilities = []
        ready = false
        guard let newOwner else {
            logger.notice("The notification server left the bus.")
            return
        }
        logger.info("Notification server is \(newOwner).")
        do {
            let call = try Message.methodCall(
                destination: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName("GetCapabilities"))
            let expected = generation
            connection.call(call, timeoutMilliseconds: 5_000) { [unowned self] result in
                guard expected == self.generation else { return }
                switch result {
                case .success(let reply):
                    let list = (try? reply.arguments())?.first?.arrayElements?.compactMap(\.stringValue) ?? []
                    self.capabilities = Set(list)
                    self.logger.info("Server capabilities: \(list.joined(separator: " "))")
                case .failure(let error):
                    self.logger.warning("GetCapabilities failed (\(error)); assuming none.")
                }
                self.ready = true
                self.flushPending()
            }
        } catch {
            logger.error("Cannot ask for capabilities: \(error)")
        }
    }

    private func flushPending() {
        let waiting = pending
        pending.removeAll()
        for (id, alert) in waiting { send(alert, id: id) }
    }

    // MARK: - Notify

    private func send(_ alert: Alert, id: String, replacing: UInt32 = 0) {
        let message: Message
        do {
            message = try Message.methodCall(
                destination: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName("Notify"),
                arguments: NotifyRequest(alert: alert, capabilities: capabilities, replacesID: replacing).arguments
            )
        } catch {
            logger.error("Cannot build Notify for \(id): \(error)")
            return
        }
        // A server without the sound capability ignores the hints; play it here, and
        // only here, so it never sounds twice.
        if !capabilities.contains("sound") { sounds?.play(alert.sound, for: id) }
        let expected = generation
        connection.call(message, timeoutMilliseconds: 10_000) { [unowned self] result in
            switch result {
            case .success(let reply):
                guard expected == self.generation else { return }
                guard case .uint32(let serverID)? = (try? reply.arguments())?.first else {
                    self.logger.warning("Notify for \(id) returned no id.")
                    return
                }
                self.chimeIDs[serverID] = id
                self.onScreen[serverID] = (id, alert)
                self.logger.debug("Notification \(id) is server id \(serverID).")
                if let expires = alert.expires, expires > 0 {
                    self.expiries[serverID] = self.loop.timeout(afterMilliseconds: Int(expires)) { [unowned self] in
                        self.close(serverID: serverID)
                    }
                }
            case .failure(let error):
                self.logger.warning("Notify for \(id) failed: \(error)")
            }
        }
    }

    /// Asks the server to close one of its notifications; the server answers with
    /// NotificationClosed (reason 3), which reaches the owner as usual.
    private func close(serverID: UInt32) {
        expiries[serverID] = nil
        guard onScreen[serverID] != nil,
              let call = try? Message.methodCall(destination: Self.busName, path: Self.path, interface: Self.interface,
                                                 member: try MemberName("CloseNotification"), arguments: [.uint32(serverID)])
        else { return }
        connection.call(call, timeoutMilliseconds: 5_000) { [unowned self] result in
            if case .failure(let error) = result { self.logger.debug("CloseNotification \(serverID): \(error)") }
        }
    }

    // MARK: - Signals

    private func fromOwner(_ message: Message) -> Bool {
        owner != nil && message.sender == owner
    }

    private func actionInvoked(_ message: Message) {
        guard fromOwner(message), let args = try? message.arguments(), args.count == 2,
              case .uint32(let serverID) = args[0], let key = args[1].stringValue,
              let id = chimeIDs[serverID] else { return }
        onAction(id, key)
    }

    private func notificationClosed(_ message: Message) {
        guard fromOwner(message), let args = try? message.arguments(), args.count == 2,
              case .uint32(let serverID) = args[0], case .uint32(let reason) = args[1],
              let id = chimeIDs.removeValue(forKey: serverID) else { return }
        onScreen[serverID] = nil
        expiries[serverID] = nil
        onClosed(id, reason)
    }
}

/// The arguments of one `Notify` call, shaped by what the server can do.
struct NotifyRequest {
    let alert: Alert
    let capabilities: Set<String>
    /// The server id of a notification on screen that this one replaces (0: none).
    var replacesID: UInt32 = 0

    /// `(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout)`
    var arguments: [Value] {
        [
            .string(alert.appName),
            .uint32(replacesID),
            .string(alert.image ?? ""),
            .string(alert.title),
            .string(body),
            .stringArray(alert.allActions.flatMap { [$0.key, $0.label] }),
            .variantDictionary(hints),
            .int32(alert.expires ?? -1),
        ]
    }

    /// The body as the server will read it: servers with `body-markup` parse it, so
    /// text that was not meant as markup is escaped for them.
    var body: String {
        capabilities.contains("body-markup") ? alert.body.xmlEscaped : alert.body
    }

    var hints: [(String, Value)] {
        var hints: [(String, Value)] = [("urgency", .byte(alert.urgency.rawValue))]
        if let category = alert.category { hints.append(("category", .string(category))) }
        if let entry = alert.desktopEntry { hints.append(("desktop-entry", .string(entry))) }
        if let image = alert.image { hints.append(("image-path", .string(image))) }
        switch alert.sound {
        case .serverDefault: break
        case .none: hints.append(("suppress-sound", .bool(true)))
        case .themed(let name): hints.append(("sound-name", .string(name)))
        case .file(let path): hints.append(("sound-file", .string(path)))
        }
        for hint in alert.hints {
            switch hint {
            case .transient(let on): hints.append(("transient", .bool(on)))
            case .resident(let on): hints.append(("resident", .bool(on)))
            case .custom(let name, let value):
                // A typed field of the alert wins over a raw hint of the same name.
                guard !hints.contains(where: { $0.0 == name }) else { continue }
                hints.append((name, value.dbusValue))
            }
        }
        return hints
    }
}

extension HintValue {
    var dbusValue: Value {
        switch self {
        case .string(let s): .string(s)
        case .int32(let i): .int32(i)
        case .double(let d): .double(d)
        case .byte(let b): .byte(b)
        case .boolean(let b): .bool(b)
        }
    }
}

extension UserInfoValue {
    var dbusValue: Value {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .int64(i)
        case .double(let d): .double(d)
        case .boolean(let b): .bool(b)
        }
    }
}
