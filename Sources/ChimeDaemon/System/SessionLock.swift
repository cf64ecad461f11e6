import ChimeCore
import DBus
import Logging

/// Whether the user's session is locked, from logind on the system bus: the session's
/// `LockedHint`, followed through `PropertiesChanged`.
///
/// The session is `XDG_SESSION_ID`'s when chimed runs inside one, else logind's `auto`,
/// which is the caller's session or, for a process outside any (chimed under the user
/// manager), the user's display session (`org.freedesktop.login1(5)`, `GetSession`).
/// Without a system bus, logind or such a session the state is ``State/unknown``; a
/// system bus or logind that goes away is no reason to stop: the state becomes unknown.
final class SessionLock {
    /// What is known of the lock.
    enum State: Equatable {
        case locked, unlocked, unknown
    }

    static let busName = try! BusName("org.freedesktop.login1")
    static let managerPath = try! ObjectPath("/org/freedesktop/login1")
    static let sessionInterface = "org.freedesktop.login1.Session"
    private static let properties = try! InterfaceName("org.freedesktop.DBus.Properties")

    private var connection: Connection?
    private let sessionID: String
    private let logger: Logger
    private var ownerWatch: NameOwnerWatch?
    private var sessionSubscription: Subscription?
    /// The unique name of logind's connection, whose signals alone are believed.
    private var owner: String? { ownerWatch?.owner }

    private(set) var state: State = .unknown
    /// Why the state is unknown, for the log line of a press that runs all the same.
    private(set) var unknownReason = "logind has not answered yet"
    /// The session was unlocked, or its lock can no longer be told: held presses may run.
    var onUnlocked: () -> Void = {}

    /// The lock, unknown until ``start(on:)``.
    init(logger: Logger) {
        self.logger = logger
        let id = environmentValue("XDG_SESSION_ID") ?? ""
        sessionID = id.isEmpty ? "auto" : id
    }

    /// Follows the session's lock on `connection` (the system bus; nil when there is none):
    /// subscribes to logind's owner and asks for the session.
    func start(on connection: Connection?) {
        self.connection = connection
        guard let connection else { return set(.unknown, reason: "there is no system bus") }
        ownerWatch = NameOwnerWatch(Self.busName, on: connection, changed: { [unowned self] owner in
            self.ownerChanged(to: owner)
        }, absent: { [unowned self] in
            self.set(.unknown, reason: "logind is not on the system bus")
        })
    }

    /// The system bus went away.
    func busLost() {
        ownerWatch = nil
        sessionSubscription = nil
        set(.unknown, reason: "the system bus went away")
    }

    private func ownerChanged(to newOwner: String?) {
        sessionSubscription = nil
        guard let newOwner else { return set(.unknown, reason: "logind left the system bus") }
        findSession(of: newOwner)
    }

    private func findSession(of logind: String) {
        guard let connection, let call = try? Message.methodCall(
            destination: Self.busName, path: Self.managerPath, interface: try InterfaceName("org.freedesktop.login1.Manager"),
            member: try MemberName("GetSession"), arguments: [.string(sessionID)]) else { return }
        connection.call(call, timeoutMilliseconds: 5_000) { [unowned self] result in
            guard self.owner == logind else { return }
            guard case .success(let reply) = result, case .objectPath(let path)? = (try? reply.arguments())?.first else {
                let why = if case .failure(let error) = result { "\(error)" } else { "no session path in the answer" }
                return self.set(.unknown, reason: "logind has no session '\(self.sessionID)' for chimed (\(why))")
            }
            self.follow(path, on: connection, logind: logind)
        }
    }

    private func follow(_ path: ObjectPath, on connection: Connection, logind: String) {
        guard let member = try? MemberName("PropertiesChanged"), let get = try? MemberName("Get") else { return }
        // Subscribed before the first read, so no change falls between the two.
        sessionSubscription = connection.subscribe(MatchRule(
            sender: Self.busName, path: path, interface: Self.properties, member: member, arg0: Self.sessionInterface
        )) { [unowned self] message in
            guard message.sender == self.owner, let args = try? message.arguments(), args.count == 3 else { return }
            if let hint = args[1].stringKeyedEntries?.first(where: { $0.key == "LockedHint" })?.value.unwrapped.boolValue {
                self.set(hint ? .locked : .unlocked, reason: "")
            } else if args[2].arrayElements?.contains(.string("LockedHint")) == true {
                self.read(path, on: connection, logind: logind, member: get)
            }
        }
        read(path, on: connection, logind: logind, member: get)
    }

    private func read(_ path: ObjectPath, on connection: Connection, logind: String, member: MemberName) {
        guard let call = try? Message.methodCall(destination: Self.busName, path: path, interface: Self.properties, member: member,
                                                 arguments: [.string(Self.sessionInterface), .string("LockedHint")]) else { return }
        connection.call(call, timeoutMilliseconds: 5_000) { [unowned self] result in
            guard self.owner == logind else { return }
            guard case .success(let reply) = result, let hint = (try? reply.arguments())?.first?.unwrapped.boolValue else {
                return self.set(.unknown, reason: "the session's LockedHint cannot be read")
            }
            self.set(hint ? .locked : .unlocked, reason: "")
        }
    }

    /// Takes a new state from logind's answer (the in-process tests give it directly).
    func set(_ new: State, reason: String) {
        if new == .unknown { unknownReason = reason }
        guard new != state else { return }
        let old = state
        state = new
        switch new {
        case .locked: logger.info("The session is locked.")
        case .unlocked: logger.info("The session is unlocked.")
        case .unknown: logger.info("Whether the session is locked cannot be told: \(reason).")
        }
        if old == .locked { onUnlocked() }
    }
}
