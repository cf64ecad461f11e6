import CDBus

// The libdbus callback bridge for messages: calls answered later, and everything that
// arrives (signals for the subscriptions, method calls for the exported objects).

extension Connection {
    /// Calls a method and returns at once; `reply` runs from the loop when the answer
    /// (or an error, or the timeout) arrives. Needs an attached loop for the timeout.
    public func call(
        _ message: Message, timeoutMilliseconds: Int32 = 25_000,
        reply: @escaping (Result<Message, DBusError>) -> Void
    ) {
        var pending: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &pending, timeoutMilliseconds) != 0, let pending else {
            reply(.failure(.disconnected("Not connected to the bus.")))
            return
        }
        let box = Unmanaged.passRetained(ReplyBox(reply, readLimits: readLimits)).toOpaque()
        dbus_pending_call_set_notify(pending, pendingCallCompleted, box, releaseReplyBox)
    }

    // MARK: - Incoming

    /// Serves a message the filter passes on; true when it is handled here.
    fileprivate func handle(_ message: Message) -> Bool {
        switch message.kind {
        case .signal:
            if message.interface == "org.freedesktop.DBus.Local" && message.member == "Disconnected" {
                onDisconnect?()
                return true
            }
            for token in subscriptions.keys.sorted() {
                // A handler may cancel other subscriptions (or its own) as it runs.
                guard let entry = subscriptions[token], entry.rule.matches(message) else { continue }
                entry.handler(message)
            }
            return false
        case .methodCall:
            return dispatchMethodCall(message)
        default:
            return false
        }
    }

    private func dispatchMethodCall(_ message: Message) -> Bool {
        guard let pathString = message.path, let path = ObjectPath(rawValue: pathString) else { return false }
        let result: Result<[Value], DBusError>
        if let object = objects[path] {
            let dispatcher = ObjectDispatcher(interfaces: object.interfaces, children: childNodes(of: path), connection: self)
            guard let answer = dispatcher.dispatch(message) else { return true }
            result = answer
        } else {
            let children = childNodes(of: path)
            guard !children.isEmpty, message.interface ?? Introspection.interfaceName == Introspection.interfaceName,
                  message.member == "Introspect" else { return false }
            result = .success([.string(Introspection.document(interfaces: [], children: children))])
        }
        guard !message.noReplyExpected else { return true }
        let reply: Message?
        switch result {
        case .success(let values):
            do { reply = try message.makeReply(values) } catch { reply = message.makeErrorReply(error) }
        case .failure(let error):
            reply = message.makeErrorReply(error)
        }
        if let reply { try? send(reply) }
        return true
    }

    /// The names of the nodes directly below `path` that lead to exported objects.
    private func childNodes(of path: ObjectPath) -> [String] {
        let prefix = path.rawValue == "/" ? "/" : path.rawValue + "/"
        let names = objects.keys.compactMap { other -> String? in
            guard other.rawValue.hasPrefix(prefix), other != path else { return nil }
            return other.rawValue.dropFirst(prefix.count).split(separator: "/").first.map(String.init)
        }
        return Array(Set(names)).sorted()
    }
}

// MARK: - libdbus callbacks
//
// These are C function pointers: no captures; the owner travels as user data.

/// Sees every message that arrives, before libdbus's own handling; installed by the
/// connection with itself as the user data.
let filterMessage: DBusHandleMessageFunction = { _, rawMessage, data in
    guard let rawMessage, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
    let connection = Unmanaged<Connection>.fromOpaque(data).takeUnretainedValue()
    let message = Message(owning: dbus_message_ref(rawMessage))
    message.readLimits = connection.readLimits
    return connection.handle(message) ? DBUS_HANDLER_RESULT_HANDLED : DBUS_HANDLER_RESULT_NOT_YET_HANDLED
}

private final class ReplyBox {
    let handler: (Result<Message, DBusError>) -> Void
    let readLimits: ReadLimits
    init(_ handler: @escaping (Result<Message, DBusError>) -> Void, readLimits: ReadLimits) {
        self.handler = handler
        self.readLimits = readLimits
    }
}

private let pendingCallCompleted: DBusPendingCallNotifyFunction = { pending, data in
    guard let pending, let data else { return }
    let box = Unmanaged<ReplyBox>.fromOpaque(data).takeUnretainedValue()
    let result: Result<Message, DBusError>
    if let raw = dbus_pending_call_steal_reply(pending) {
        let reply = Message(owning: raw)
        reply.readLimits = box.readLimits
        result = reply.kind == .error ? .failure(reply.error ?? .failed("Error reply.")) : .success(reply)
    } else {
        result = .failure(DBusError(name: DBusError.noReplyName, message: "No reply arrived."))
    }
    box.handler(result)
    // Drops send_with_reply's reference; libdbus then frees the box through releaseReplyBox.
    dbus_pending_call_unref(pending)
}

private let releaseReplyBox: DBusFreeFunction = { data in
    guard let data else { return }
    Unmanaged<ReplyBox>.fromOpaque(data).release()
}
