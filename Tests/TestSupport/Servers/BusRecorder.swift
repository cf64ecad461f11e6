import Foundation

/// Everything said on the session bus to and by the notification server, as `dbus-monitor`
/// prints it: what Chime sent a real server, what it answered and which signals it emitted.
public final class BusRecorder {
    private let process: Spawned

    /// One `Notify` call and the id the server answered with (nil until it answered).
    public struct Notified: CustomStringConvertible {
        public let summary: String
        public let body: String
        /// The action array: key, label, key, label, …
        public let actions: [String]
        /// The hints dictionary as dbus-monitor printed it.
        public let hints: String
        public let expireTimeout: Int32
        public let id: UInt32?

        public var description: String {
            "Notify(\(summary.debugDescription), \(body.debugDescription), \(actions), timeout \(expireTimeout)) -> \(id.map(String.init) ?? "no answer")"
        }
    }

    /// A message: its header line and its argument lines (trimmed).
    struct Message {
        let header: String
        let lines: [String]

        func field(_ name: String) -> String? {
            header.split(separator: " ").first { $0.hasPrefix(name + "=") }
                .map { String($0.dropFirst(name.count + 1)).trimmingCharacters(in: CharacterSet(charactersIn: ";")) }
        }

        var member: String? { field("member") }
    }

    /// Starts monitoring `session`'s bus; returns once dbus-monitor is listening.
    public init(session: TestSession) throws {
        process = try session.spawn(["dbus-monitor", "--session",
                                     "interface='org.freedesktop.Notifications'", "type='method_return'", "type='error'"])
        // dbus-monitor's first output is the bus's NameAcquired signal to it.
        guard process.stdout.wait(timeout: 60, until: { $0.contains("NameLost") || $0.contains("NameAcquired") }) else {
            throw TestFailure.failed("dbus-monitor did not start: \(process.stderr.text)")
        }
    }

    deinit { process.stop() }

    /// Everything dbus-monitor printed so far.
    public var text: String { process.stdout.text }

    static func messages(in text: String) -> [Message] {
        var result: [Message] = []
        var header: String?
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(" ") {
                lines.append(line.trimmingCharacters(in: .whitespaces))
            } else if !line.isEmpty {
                if let header { result.append(Message(header: header, lines: lines)) }
                header = String(line)
                lines = []
            }
        }
        if let header { result.append(Message(header: header, lines: lines)) }
        return result
    }

    /// The text of a `string "…"` line.
    static func string(_ line: String) -> String {
        guard line.hasPrefix("string \""), line.hasSuffix("\"") else { return line }
        return String(line.dropFirst(8).dropLast())
    }

    /// The `Notify` calls so far, each with the id its answer gave.
    public func notifications() -> [Notified] {
        Self.notifications(in: Self.messages(in: text))
    }

    static func notifications(in messages: [Message]) -> [Notified] {
        messages.compactMap { message -> Notified? in
            // GNOME Shell's org.gnome.Shell.Notifications passes each call on to the shell itself
            // on the same interface, adding the hint sender-pid, which Chime never sends.
            guard message.header.hasPrefix("method call"), message.member == "Notify", message.lines.count >= 8,
                  !message.lines.contains("string \"sender-pid\"") else { return nil }
            let lines = message.lines
            var index = 5
            var actions: [String] = []
            if lines[index].hasPrefix("array [") {
                index += 1
                while index < lines.count, lines[index] != "]" {
                    actions.append(string(lines[index]))
                    index += 1
                }
                index += 1
            }
            let hintsEnd = lines.lastIndex { $0.hasPrefix("int32 ") } ?? lines.count
            let hints = index < hintsEnd ? lines[index..<hintsEnd].joined(separator: " ") : ""
            let timeout = hintsEnd < lines.count ? Int32(lines[hintsEnd].dropFirst(6)) ?? 0 : 0
            let serial = message.field("serial"), sender = message.field("sender")
            let reply = messages.first {
                $0.header.hasPrefix("method return") && $0.field("reply_serial") == serial && $0.field("destination") == sender
            }
            let id = reply?.lines.first.flatMap { $0.hasPrefix("uint32 ") ? UInt32($0.dropFirst(7)) : nil }
            return Notified(summary: string(lines[3]), body: string(lines[4]), actions: actions, hints: hints,
                            expireTimeout: timeout, id: id)
        }
    }

    /// Waits until `count` answered `Notify` calls with `summary` were seen; returns them.
    @discardableResult
    public func waitForNotifications(summary: String, count: Int = 1, timeout: TimeInterval = 60) throws -> [Notified] {
        var found: [Notified] = []
        let seen = process.stdout.wait(timeout: timeout) { text in
            found = Self.notifications(in: Self.messages(in: text)).filter { $0.summary == summary && $0.id != nil }
            return found.count >= count
        }
        guard seen else {
            throw TestFailure.timeout("\(count) answered Notify for \(summary.debugDescription); saw \(notifications())")
        }
        return found
    }

    /// The server's `NotificationClosed` reasons for `id`, in order.
    public func closedReasons(of id: UInt32) -> [UInt32] {
        Self.signals("NotificationClosed", of: id, in: Self.messages(in: text)).compactMap { message in
            message.lines.dropFirst().first.flatMap { $0.hasPrefix("uint32 ") ? UInt32($0.dropFirst(7)) : nil }
        }
    }

    /// Waits for the server's `NotificationClosed` for `id`; returns its reason.
    public func waitForClosed(_ id: UInt32, timeout: TimeInterval = 60) throws -> UInt32 {
        guard process.stdout.wait(timeout: timeout, until: { Self.signals("NotificationClosed", of: id, in: Self.messages(in: $0)).count > 0 }),
              let reason = closedReasons(of: id).first else {
            throw TestFailure.timeout("NotificationClosed for \(id); saw \(text.suffix(3000))")
        }
        return reason
    }

    /// The action keys the server's `ActionInvoked` signals gave for `id`, in order.
    public func invokedActions(of id: UInt32) -> [String] {
        Self.signals("ActionInvoked", of: id, in: Self.messages(in: text)).compactMap { $0.lines.dropFirst().first.map(Self.string) }
    }

    /// Whether anyone sent the server `CloseNotification` for `id`.
    public func closeRequested(_ id: UInt32) -> Bool {
        Self.messages(in: text).contains {
            $0.header.hasPrefix("method call") && $0.member == "CloseNotification" && $0.lines.first == "uint32 \(id)"
        }
    }

    /// Whether the server closed `id` by itself: its first `NotificationClosed` gives a
    /// reason other than 3, which answers a `CloseNotification` (GNOME Shell closes a
    /// clicked one before Chime's own close arrives; the order on the bus says less).
    public func closedByServer(_ id: UInt32) -> Bool {
        guard let reason = closedReasons(of: id).first else { return false }
        return reason != 3
    }

    /// Returns once every message the server sent before now has been read: a call it
    /// answers comes after them on the bus.
    public func catchUp(on session: TestSession) throws {
        let before = Self.messages(in: text).filter { $0.member == "GetServerInformation" }.count
        _ = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                             "/org/freedesktop/Notifications", "--method", "org.freedesktop.Notifications.GetServerInformation"])
        let caughtUp = process.stdout.wait(timeout: 60) { text in
            let messages = Self.messages(in: text)
            let calls = messages.filter { $0.header.hasPrefix("method call") && $0.member == "GetServerInformation" }
            guard calls.count > before, let serial = calls.last?.field("serial") else { return false }
            return messages.contains { $0.header.hasPrefix("method return") && $0.field("reply_serial") == serial }
        }
        guard caughtUp else { throw TestFailure.timeout("dbus-monitor catching up: \(text.suffix(2000))") }
    }

    static func signals(_ member: String, of id: UInt32, in messages: [Message]) -> [Message] {
        messages.filter { $0.header.hasPrefix("signal") && $0.member == member && $0.lines.first == "uint32 \(id)" }
    }
}
