import CLinux
import Foundation
import Glibc

// MARK: - A second bus on the same data

extension TestSession {
    /// A new bus (with its own notification server, unless `capabilities` is nil) whose
    /// chimed uses the data directory of `other`: as when the session bus restarts and
    /// the user manager starts chimed again on the same files.
    public convenience init(sharingDataOf other: TestSession, capabilities: String? = "body actions sound") throws {
        try self.init(capabilities: capabilities, timeZone: other.timeZone)
        // chimed is started on the first call, so nothing has made this folder yet.
        try FileManager.default.createSymbolicLink(at: directory.appendingPathComponent("data"),
                                                   withDestinationURL: other.directory.appendingPathComponent("data"))
    }

    /// Starts the built chimed by hand, with `umask` (octal, as the shell's `umask`
    /// takes it) in force, as a session would hand it its own.
    public func spawnDaemon(umask: String, environment extra: [String: String] = [:]) throws -> Spawned {
        let chimed = binDirectory.appendingPathComponent("chimed").path
        return try Spawned(["/bin/sh", "-c", "umask \(umask) && exec \"$0\"", chimed],
                           environment: environment.merging(extra) { $1 })
    }

    /// Whether chimed's store lock is free: a new chimed could take the data directory now.
    public var storeLockIsFree: Bool {
        let fd = open(dataDirectory.appendingPathComponent("lock").path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        flock(fd, LOCK_UN)
        return true
    }

    /// The ids `chime list --json` prints.
    public func listedIDs() throws -> Set<String> {
        Set(try listedJSON().compactMap { $0["id"] as? String })
    }

    /// What `chime list --json` prints: one object per notification.
    public func listedJSON() throws -> [[String: Any]] {
        try json(["chime", "list", "--json"])
    }

    /// What `chime show ID --json` prints.
    public func shownJSON(_ id: String) throws -> [String: Any] {
        try json(["chime", "show", id, "--json"])
    }

    /// The JSON a command prints, as `T`; fails naming the command when it fails or prints something else.
    public func json<T>(_ command: [String]) throws -> T {
        let result = try run(command)
        guard result.status == 0, let value = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? T else {
            throw TestFailure.failed("\(command.joined(separator: " ")): \(result)")
        }
        return value
    }
}

// MARK: - A systemd user manager that records what it is asked

/// python-dbusmock posing as a systemd user manager on the session bus
/// (`org.freedesktop.systemd1`), answering `StartTransientUnit` with a job path and
/// recording every call.
public final class SystemdManagerMock {
    private let process: Spawned
    private let session: TestSession

    public init(session: TestSession) throws {
        self.session = session
        process = try session.spawn(["/usr/bin/python3", "-m", "dbusmock", "--session", "org.freedesktop.systemd1",
                                     "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager"])
        try session.waitForName("org.freedesktop.systemd1")
        let added = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.systemd1",
                                     "--object-path", "/org/freedesktop/systemd1",
                                     "--method", "org.freedesktop.DBus.Mock.AddMethod", "",
                                     "StartTransientUnit", "ssa(sv)a(sa(sv))", "o",
                                     "ret = dbus.ObjectPath('/org/freedesktop/systemd1/job/1')"])
        guard added.status == 0 else { throw TestFailure.failed("AddMethod StartTransientUnit: \(added)") }
    }

    /// The StartTransientUnit calls so far, each as gdbus prints its arguments.
    public func transientUnitCalls() throws -> [String] {
        let result = try session.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.systemd1",
                                      "--object-path", "/org/freedesktop/systemd1",
                                      "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", "StartTransientUnit"])
        guard result.status == 0 else { throw TestFailure.failed("GetMethodCalls: \(result)") }
        return result.stdout.components(separatedBy: ", [<").dropFirst().map { "[<" + $0 }
    }

    /// Waits until `count` StartTransientUnit calls have arrived; returns them.
    public func waitForTransientUnitCalls(_ count: Int, timeout: TimeInterval = 60) throws -> [String] {
        // The mock offers no signal for a received call, so this asks again at a short interval.
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            let calls = try transientUnitCalls()
            if calls.count >= count { return calls }
            guard Date() < deadline else { throw TestFailure.timeout("\(count) StartTransientUnit calls; have \(calls.count)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    deinit { process.stop() }
}

// MARK: - An sd_notify socket

/// The receiving end of `NOTIFY_SOCKET`, as systemd's: a datagram socket bound to a path
/// (or, when `abstract`, to an abstract name), whose datagrams a test reads.
public final class NotifySocket {
    /// What to put in `NOTIFY_SOCKET`.
    public let address: String
    private let fd: Int32

    public init(directory: URL, abstract: Bool = false) throws {
        let name = abstract ? "@chime-test-notify-\(UUID().uuidString)" : directory.appendingPathComponent("notify").path
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure.failed("socket: \(String(cString: strerror(errno)))") }
        var where_ = sockaddr_un()
        where_.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(name.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: where_.sun_path) else {
            close(fd)
            throw TestFailure.failed("\(name) is too long")
        }
        withUnsafeMutableBytes(of: &where_.sun_path) { path in
            path.copyBytes(from: bytes)
            if abstract { path[0] = 0 }
        }
        let size = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &where_) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) }
        }
        guard bound == 0 else {
            close(fd)
            throw TestFailure.failed("bind \(name): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        address = name
    }

    /// The next datagram, or nil when none arrives within `timeout`.
    public func receive(timeout: TimeInterval) -> String? {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&ready, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count < 0 ? nil : String(decoding: buffer[..<count], as: UTF8.self)
    }

    deinit { close(fd) }
}

// MARK: - The bus goes away

/// One round of the bus-loss fault, for the tests and the soak: a chimed on a private
/// bus, the bus killed at `moment`, then a new bus on the same data directory.
public enum BusLoss {
    /// When the bus dies.
    public enum Moment: String, CaseIterable, Sendable {
        /// Nothing is happening.
        case idle
        /// Clients are scheduling, several calls in flight.
        case scheduling
        /// chimed waits for the answer to a Notify (the server is stopped).
        case notifyInFlight
        /// chimed has just been started and may not own its name yet.
        case startingUp
    }

    /// What one round saw.
    public struct Outcome: CustomStringConvertible, Sendable {
        public let moment: Moment
        /// chimed's exit status (nil: it did not exit within the limit).
        public let status: Int32?
        /// From the signal that killed the bus to chimed's exit.
        public let secondsToExit: Double
        /// Whether the store lock was free once chimed had exited.
        public let lockFree: Bool
        /// How many schedules were acknowledged before the bus died.
        public let acknowledged: Int
        /// Acknowledged ids the next chimed does not list.
        public let missing: [String]
        /// What chimed logged.
        public let log: String

        public var description: String {
            "\(moment.rawValue): status \(status.map(String.init) ?? "none"), \(String(format: "%.3f", secondsToExit)) s, "
                + "lock \(lockFree ? "free" : "held"), \(acknowledged) acknowledged, \(missing.count) missing"
        }
    }

    /// Runs one round; `exitLimit` is how long chimed has to leave after the bus dies.
    public static func round(_ moment: Moment, exitLimit: TimeInterval = 10) throws -> Outcome {
        let session = try TestSession()
        let daemon = try session.spawn(["chimed"])
        var acknowledged: [String] = []
        if moment != .startingUp {
            try session.waitForName("io.github.chime.Chime")
            acknowledged.append(try session.add("Before", "--in", "1h"))
        }
        var clients: [Spawned] = []
        switch moment {
        case .idle:
            break
        case .scheduling:
            // Four clients in a loop, each printing the id of every schedule acknowledged;
            // the bus dies once a few are in, so that calls are in flight (and answers on
            // their way) when it goes.
            let chime = binDirectory.appendingPathComponent("chime").path
            for client in 0..<4 {
                clients.append(try session.spawn(["/bin/sh", "-c",
                    "i=0; while [ $i -lt 1000 ] && \"$0\" add \"c\(client)-$i\" --in 2h; do i=$((i + 1)); done", chime]))
            }
            let deadline = Date(timeIntervalSinceNow: 60)
            while clients.reduce(0, { $0 + ids(in: $1).count }) < 12 && Date() < deadline {
                _ = clients[0].stdout.wait(timeout: 0.05) { _ in false }
            }
        case .notifyInFlight:
            if let mock = session.mock { kill(mock.process.processIdentifier, SIGSTOP) }
            let sent = try session.run(["chime", "notify", "Stuck", "The server is stopped"])
            guard sent.status == 0 else { throw TestFailure.failed("chime notify: \(sent)") }
            // PresentNow is answered before chimed sends Notify, and the stopped server
            // answers nothing: the call is in flight from here on.
        case .startingUp:
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.05))
        }

        let killed = Date()
        session.stopBus()
        let result = try? daemon.finish(timeout: exitLimit)
        let seconds = Date().timeIntervalSince(killed)
        if let mock = session.mock { kill(mock.process.processIdentifier, SIGCONT) }
        for client in clients { _ = try? client.finish(timeout: 60) }
        acknowledged += clients.flatMap { ids(in: $0) }

        let lockFree = session.storeLockIsFree
        var missing: [String] = []
        if moment != .startingUp {
            let next = try TestSession(sharingDataOf: session, capabilities: nil)
            let listed = try next.listedIDs()
            missing = acknowledged.filter { !listed.contains($0) }
        }
        return Outcome(moment: moment, status: result?.status, secondsToExit: seconds, lockFree: lockFree,
                       acknowledged: acknowledged.count, missing: missing, log: result?.stderr ?? daemon.stderr.text)
    }

    /// The ids a client printed, one per acknowledged schedule: the first word of whole
    /// lines only.
    private static func ids(in client: Spawned) -> [String] {
        client.stdout.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { String($0.prefix { $0 != " " }) }
    }
}
