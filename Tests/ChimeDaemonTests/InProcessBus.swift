import CDBus
@testable import DBus
import Foundation
import Glibc
import Synchronization

/// A message bus inside the test process: it authenticates its clients, answers Hello,
/// AddMatch, RemoveMatch and RequestName as dbus-daemon does, routes calls and their
/// answers between its clients by unique or well-known name (setting the sender, as a bus
/// does), refuses calls to nobody with ServiceUnknown, and keeps the signals it receives
/// (it passes none on). No dbus-daemon is started.
///
/// It serves from a thread of its own: ``Connection/bus(address:)`` blocks until its Hello
/// is answered. It stops when it is released.
final class InProcessBus: Sendable {
    struct Signal: Sendable, Equatable {
        let path: String
        let interface: String
        let member: String
        let arguments: [Value]
    }

    /// What the serving thread shares with the test.
    private final class Received: Sendable {
        let signals = Mutex<[Signal]>([])
    }

    let address: String
    private let received = Received()
    /// Closed on release: the serving thread sees the other end hang up, closes every
    /// socket it holds and ends.
    private let stopWriter: Int32

    init() throws {
        let name = "chime-test-bus-\(UUID().uuidString)"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw Failure("socket: errno \(errno)") }
        // An abstract socket: no file to clean up, and gone with the process.
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path in
            for (index, byte) in name.utf8.enumerated() { path[index + 1] = byte }
        }
        let length = socklen_t(MemoryLayout.offset(of: \sockaddr_un.sun_path)! + 1 + name.utf8.count)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        guard bound == 0, listen(listener, 8) == 0 else {
            close(listener)
            throw Failure("bind or listen: errno \(errno)")
        }
        var stop: [Int32] = [0, 0]
        guard pipe(&stop) == 0 else {
            close(listener)
            throw Failure("pipe: errno \(errno)")
        }
        // Not inherited by the commands other tests start, which would hold it open.
        for fd in stop { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        self.address = "unix:abstract=" + name
        stopWriter = stop[1]
        let (stopReader, received) = (stop[0], received)
        Thread.detachNewThread { Self.serve(listener: listener, stop: stopReader, received: received) }
    }

    deinit { close(stopWriter) }

    /// The signals received so far, oldest first.
    var signals: [Signal] { received.signals.withLock { $0 } }

    /// Waits up to `seconds` for `count` signals; the signals received by then.
    func waitForSignals(_ count: Int, seconds: Double = 5) -> [Signal] {
        let deadline = Date().addingTimeInterval(seconds)
        while signals.count < count, Date() < deadline { usleep(1_000) }
        return signals
    }

    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: - The serving thread

    /// One client: its socket, the bytes read and not yet used, and whether it has
    /// authenticated (before that its lines are the SASL exchange, after it messages).
    private struct Client {
        let fd: Int32
        /// Its unique name, given at Hello.
        let name: String
        var buffer: [UInt8] = []
        var authenticated = false
    }

    /// Who is on the bus: the socket of each unique name, and the owner of each well-known one.
    private struct Names {
        var sockets: [String: Int32] = [:]
        var owners: [String: String] = [:]
        var nextUnique = 1

        func socket(of name: String) -> Int32? {
            sockets[owners[name] ?? name]
        }
    }

    private static func serve(listener: Int32, stop: Int32, received: Received) {
        var clients: [Client] = []
        var names = Names()
        defer {
            for client in clients { close(client.fd) }
            close(listener)
            close(stop)
        }
        while true {
            var fds = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0), pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
                + clients.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&fds, nfds_t(fds.count), -1) >= 0 || errno == EINTR else { return }
            if fds[0].revents != 0 { return }
            var closed: Set<Int32> = []
            for index in clients.indices where fds[index + 2].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                let count = read(clients[index].fd, &chunk, chunk.count)
                guard count > 0 else {
                    closed.insert(clients[index].fd)
                    continue
                }
                clients[index].buffer += chunk.prefix(count)
                if !handle(&clients[index], &names, received) { closed.insert(clients[index].fd) }
            }
            for fd in closed { close(fd) }
            let gone = Set(clients.filter { closed.contains($0.fd) }.map(\.name))
            clients.removeAll { closed.contains($0.fd) }
            for name in gone { names.sockets[name] = nil }
            names.owners = names.owners.filter { !gone.contains($0.value) }
            // After the clients polled: a new one has no entry in `fds` yet.
            if fds[1].revents & Int16(POLLIN) != 0 {
                let fd = accept(listener, nil, nil)
                if fd >= 0 {
                    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
                    let name = ":1.\(names.nextUnique)"
                    names.nextUnique += 1
                    names.sockets[name] = fd
                    clients.append(Client(fd: fd, name: name))
                }
            }
        }
    }

    /// Uses what `client` sent so far; false when it is to be hung up on.
    private static func handle(_ client: inout Client, _ names: inout Names, _ received: Received) -> Bool {
        while !client.authenticated {
            // The client's first byte is a NUL (for credentials passing), then CRLF-ended
            // lines: no line starts with a NUL.
            if client.buffer.first == 0 { client.buffer.removeFirst() }
            guard let end = client.buffer.indices.first(where: { client.buffer[$0] == 13 && $0 + 1 < client.buffer.count
                && client.buffer[$0 + 1] == 10 }) else { return true }
            let line = String(decoding: client.buffer[..<end], as: UTF8.self)
            client.buffer.removeFirst(end + 2)
            // The EXTERNAL mechanism: the kernel vouches for the peer, as for dbus-daemon.
            let answer: String? = switch line.split(separator: " ").first {
            case "AUTH" where line.hasPrefix("AUTH EXTERNAL"), "DATA": "OK 0123456789abcdef0123456789abcdef"
            case "NEGOTIATE_UNIX_FD": "AGREE_UNIX_FD"
            case "BEGIN": nil
            default: "REJECTED EXTERNAL"
            }
            guard let answer else {
                client.authenticated = true
                break
            }
            guard send(Array((answer + "\r\n").utf8), to: client.fd) else { return false }
        }
        while let length = messageLength(client.buffer), client.buffer.count >= length {
            let bytes = Array(client.buffer.prefix(length))
            client.buffer.removeFirst(length)
            guard let message = try? Message.demarshal(bytes) else { return false }
            if message.kind == .signal {
                let signal = Signal(path: message.path ?? "", interface: message.interface ?? "", member: message.member ?? "",
                                    arguments: (try? message.arguments()) ?? [])
                received.signals.withLock { $0.append(signal) }
            } else if let destination = message.destination, destination != "org.freedesktop.DBus",
                      let socket = names.socket(of: destination) {
                dbus_message_set_sender(message.raw, client.name)
                // A peer that went away costs only what was sent to it.
                if let bytes = try? message.marshalled() { _ = send(bytes, to: socket) }
            } else if message.kind == .methodCall, !message.noReplyExpected {
                guard let reply = answer(message, from: client.name, &names), let bytes = try? reply.marshalled(),
                      send(bytes, to: client.fd) else { return false }
            }
        }
        return true
    }

    /// What dbus-daemon answers a call to it; ServiceUnknown for calls to nobody on the bus.
    private static func answer(_ call: Message, from sender: String, _ names: inout Names) -> Message? {
        guard call.destination == "org.freedesktop.DBus" else {
            return call.makeErrorReply(DBusError(name: DBusError.serviceUnknownName,
                                                 message: "Nobody owns \(call.destination ?? "that name") on this bus."))
        }
        switch call.member {
        case "Hello":
            return try? call.makeReply([.string(sender)])
        case "AddMatch", "RemoveMatch":
            return try? call.makeReply()
        case "RequestName":
            guard let name = (try? call.arguments())?.first?.stringValue else { return nil }
            // 1: the primary owner now; 3: another client owns it.
            if let owner = names.owners[name], owner != sender { return try? call.makeReply([.uint32(3)]) }
            names.owners[name] = sender
            return try? call.makeReply([.uint32(1)])
        default:
            return call.makeErrorReply(DBusError(name: DBusError.unknownMethodName, message: "This bus answers only what tests need."))
        }
    }

    /// The length of the message at the start of `bytes` from its fixed header: 16 bytes,
    /// the header fields (padded to 8) and the body; nil until the fixed header is there.
    private static func messageLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 16 else { return nil }
        func number(at offset: Int) -> Int {
            let field = bytes[offset..<offset + 4].map(Int.init)
            return bytes[0] == UInt8(ascii: "l")
                ? field[0] | field[1] << 8 | field[2] << 16 | field[3] << 24
                : field[3] | field[2] << 8 | field[1] << 16 | field[0] << 24
        }
        let fields = number(at: 12)
        return 16 + (fields + 7) / 8 * 8 + number(at: 4)
    }

    private static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
