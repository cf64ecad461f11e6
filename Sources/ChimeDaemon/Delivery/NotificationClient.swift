import DBus
import EventLoop
import Logging

/// What the presenter needs of a notification server: the real client in chimed, a fake
/// in the in-process tests.
protocol NotificationPoster: AnyObject {
    /// What the current server says it can do; nil until it has said.
    var capabilities: Set<String>? { get }
    /// The unique name of the server that owns the name now; nil while there is none.
    var owner: String? { get }
    /// Whether there is a server to send to, which answered its first `GetCapabilities`.
    var isReady: Bool { get }
    var onEvent: (NotificationClient.Event) -> Void { get set }
    /// Sends `Notify`; `reply` gets the server's id for it, or why not.
    func notify(_ request: NotifyArguments, reply: @escaping (Result<UInt32, NotificationClient.Failure>) -> Void)
    /// Asks the server to close one of its notifications.
    func close(serverID: UInt32)
    /// The current server process, as the bus's id and its unique name (unique names are
    /// never reused within one bus's life); nil while there is none.
    var server: String? { get }
    /// The ids the current server says it closed, from a history it keeps (dunst's); nil
    /// when it keeps none Chime can read.
    func closedIDs(reply: @escaping (Set<UInt32>?) -> Void)
    /// The name the current server gives itself in `GetServerInformation`; nil when it does not say.
    func name(reply: @escaping (String?) -> Void)
}

/// The client side of `org.freedesktop.Notifications`: follows whoever owns the name,
/// learns its capabilities, sends `Notify` and `CloseNotification`, and reports the
/// server's signals. It keeps no notification state: that is the ``Presenter``'s.
///
/// Everything it reports is checked against the current owner's unique name: servers
/// broadcast their signals (or, like GNOME Shell and dunst, send them only to the
/// connection that called Notify), and any client can send a signal to us directly.
final class NotificationClient: NotificationPoster {
    static let busName = try! BusName("org.freedesktop.Notifications")
    static let path = try! ObjectPath("/org/freedesktop/Notifications")
    static let interface = try! InterfaceName("org.freedesktop.Notifications")

    /// What the server did.
    enum Event {
        /// Another process owns the name now (nil: none). Calls in flight to the old one
        /// fail by themselves; its ids mean nothing any more.
        case ownerChanged(String?)
        /// The first answer to `GetCapabilities` from the current owner arrived, or the
        /// first try failed: sending may start (``capabilities`` says how).
        case ready
        /// A button, or the notification itself, was pressed.
        case actionInvoked(serverID: UInt32, key: String)
        /// A notification left the screen, with the server's reason code.
        case closed(serverID: UInt32, reason: UInt32)
    }

    /// How long the server has to answer `Notify`; after that the attempt counts as failed.
    static let notifyTimeoutMilliseconds: Int32 = 10_000
    /// `GetCapabilities` is asked again after a failure, up to this interval apart.
    /// GNOME Shell owns the name before its object is exported: the first call fails
    /// in about 2 of 5 starts, measured against GNOME Shell 43.
    static let capabilityRetryLimitMilliseconds = 30_000

    private let connection: Connection
    private let loop: EventLoop
    private let logger: Logger
    private var subscriptions: [Subscription] = []
    private var ownerWatch: NameOwnerWatch?
    private var capabilityRetry: Source?

    /// The unique name of the current server, nil while there is none.
    var owner: String? { ownerWatch?.owner }
    var server: String? { owner.map { connection.busID + " " + $0 } }
    /// What the current server says it can do; nil until it has answered `GetCapabilities`.
    private(set) var capabilities: Set<String>?
    /// Whether notifications may be sent now: there is a server and it answered (or
    /// failed to answer) its first `GetCapabilities`.
    private(set) var isReady = false

    var onEvent: (Event) -> Void = { _ in }

    init(connection: Connection, loop: EventLoop, logger: Logger) {
        self.connection = connection
        self.loop = loop
        self.logger = logger
    }

    /// Subscribes to the server's signals and looks for a current owner.
    func start() throws(DBusError) {
        subscriptions = [
            connection.subscribe(MatchRule(
                sender: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName("ActionInvoked")
            )) { [unowned self] message in
                guard self.fromOwner(message), let args = try? message.arguments(), args.count == 2,
                      case .uint32(let serverID) = args[0], let key = args[1].stringValue else { return }
                self.onEvent(.actionInvoked(serverID: serverID, key: key))
            },
            connection.subscribe(MatchRule(
                sender: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName("NotificationClosed")
            )) { [unowned self] message in
                guard self.fromOwner(message), let args = try? message.arguments(), args.count == 2,
                      case .uint32(let serverID) = args[0], case .uint32(let reason) = args[1] else { return }
                self.onEvent(.closed(serverID: serverID, reason: reason))
            },
        ]
        // Only the bus itself speaks for the name: believing a client that sends
        // NameOwnerChanged straight to us would stop all delivery.
        ownerWatch = NameOwnerWatch(Self.busName, on: connection, changed: { [unowned self] owner in
            self.ownerChanged(to: owner)
        }, absent: { [unowned self] in
            self.logger.notice("No notification server is running; notifications wait until one appears.")
        })
    }

    private func fromOwner(_ message: Message) -> Bool {
        owner != nil && message.sender == owner
    }

    // MARK: - Owner and capabilities

    private func ownerChanged(to newOwner: String?) {
        capabilities = nil
        isReady = false
        capabilityRetry = nil
        if let newOwner {
            logger.info("Notification server is \(newOwner).")
        } else {
            logger.notice("The notification server left the bus.")
        }
        onEvent(.ownerChanged(newOwner))
        if let newOwner { askCapabilities(of: newOwner, retryAfter: 250) }
    }

    private func askCapabilities(of server: String, retryAfter delay: Int) {
        let call: Message
        do {
            call = try Message.methodCall(
                destination: try BusName(server), path: Self.path, interface: Self.interface,
                member: try MemberName("GetCapabilities"))
        } catch {
            logger.error("Cannot ask \(server) for its capabilities: \(error)")
            return
        }
        connection.call(call, timeoutMilliseconds: 5_000) { [unowned self] result in
            guard self.owner == server else { return }
            switch result {
            case .success(let reply):
                let list = (try? reply.arguments())?.first?.arrayElements?.compactMap(\.stringValue) ?? []
                self.capabilities = Set(list)
                self.logger.info("Server capabilities: \(list.joined(separator: " "))")
            case .failure(let error):
                self.logger.warning("GetCapabilities failed (\(error)); sending plain text until \(server) answers; asking again in \(delay) ms.")
                self.capabilityRetry = self.loop.timeout(afterMilliseconds: delay) { [unowned self] in
                    self.capabilityRetry = nil
                    guard self.owner == server else { return }
                    self.askCapabilities(of: server, retryAfter: min(delay * 2, Self.capabilityRetryLimitMilliseconds))
                }
            }
            if !self.isReady {
                self.isReady = true
                self.onEvent(.ready)
            }
        }
    }

    // MARK: - Calls

    /// Why a `Notify` did not put a notification on screen.
    enum Failure: Error {
        /// There is no server to send to.
        case noServer
        /// The call failed: an error reply, no reply in time, or the server left first.
        case failed(DBusError)
    }

    /// Sends `Notify` to the current server; `reply` gets its id for the notification,
    /// but only when the answer comes from the server that is still the owner.
    func notify(_ request: NotifyArguments, reply: @escaping (Result<UInt32, Failure>) -> Void) {
        guard let server = owner else { return reply(.failure(.noServer)) }
        let message: Message
        do {
            // To the unique name: when that server leaves, the bus fails the call at
            // once instead of handing it to whoever takes the name next.
            message = try Message.methodCall(
                destination: try BusName(server), path: Self.path, interface: Self.interface,
                member: try MemberName("Notify"), arguments: request.arguments
            )
        } catch {
            return reply(.failure(.failed(error)))
        }
        connection.call(message, timeoutMilliseconds: Self.notifyTimeoutMilliseconds) { [unowned self] result in
            switch result {
            case .success(let answer):
                guard self.owner == server, answer.sender == server else {
                    return reply(.failure(.failed(.failed("The server left before its answer was read."))))
                }
                guard case .uint32(let serverID)? = (try? answer.arguments())?.first else {
                    return reply(.failure(.failed(.failed("The server's answer holds no notification id."))))
                }
                reply(.success(serverID))
            case .failure(let error):
                reply(.failure(.failed(error)))
            }
        }
    }

    func name(reply: @escaping (String?) -> Void) {
        guard let server = owner, let destination = try? BusName(server),
              let call = try? Message.methodCall(destination: destination, path: Self.path, interface: Self.interface,
                                                 member: try MemberName("GetServerInformation"))
        else { return reply(nil) }
        connection.call(call, timeoutMilliseconds: 2_000) { result in
            guard case .success(let answer) = result else { return reply(nil) }
            reply((try? answer.arguments())?.first?.stringValue)
        }
    }

    /// dunst keeps what was closed in a history (`org.dunstproject.cmd0`), ids included; it
    /// also shows afresh, under the same id, a notification replaced after it was closed,
    /// so that history is how a closed one is told from one still on screen. Other
    /// servers answer UnknownInterface or UnknownMethod: nil.
    func closedIDs(reply: @escaping (Set<UInt32>?) -> Void) {
        guard let server = owner, let destination = try? BusName(server),
              let call = try? Message.methodCall(destination: destination, path: Self.path,
                                                 interface: try InterfaceName("org.dunstproject.cmd0"),
                                                 member: try MemberName("NotificationListHistory"))
        else { return reply(nil) }
        connection.call(call, timeoutMilliseconds: 2_000) { result in
            guard case .success(let answer) = result, let list = (try? answer.arguments())?.first?.arrayElements else {
                return reply(nil)
            }
            let ids = list.compactMap { entry in
                entry.stringKeyedEntries?.first { $0.key == "id" }?.value.unwrapped.integerValue.flatMap(UInt32.init(exactly:))
            }
            reply(Set(ids))
        }
    }

    /// Asks the current server to close one of its notifications; it answers with
    /// `NotificationClosed` (reason 3), reported as usual.
    func close(serverID: UInt32) {
        guard let server = owner, let destination = try? BusName(server),
              let call = try? Message.methodCall(destination: destination, path: Self.path, interface: Self.interface,
                                                 member: try MemberName("CloseNotification"), arguments: [.uint32(serverID)])
        else { return }
        connection.call(call, timeoutMilliseconds: 5_000) { [logger] result in
            if case .failure(let error) = result { logger.debug("CloseNotification \(serverID): \(error)") }
        }
    }
}
