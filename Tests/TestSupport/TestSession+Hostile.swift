import Foundation

extension TestSession {
    /// `gdbus call` to chimed's Scheduler1 `method` with GVariant-text `arguments`.
    public func callScheduler(_ method: String, _ arguments: String..., timeout: TimeInterval = 60) throws -> ProcessResult {
        try run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                 "--method", "io.github.chime.Scheduler1." + method] + arguments, timeout: timeout)
    }

    /// Pings chimed (starting it when needed); true when it answered.
    public func pingDaemon(timeout: TimeInterval = 60) throws -> Bool {
        try run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                 "--method", "org.freedesktop.DBus.Peer.Ping"], timeout: timeout).status == 0
    }

    /// The config file chimed reads in this session (its directory is made).
    public var configFile: URL {
        let directory = directory.appendingPathComponent("config/chime")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("config")
    }
}

extension TestSession {
    /// The unique name that owns `name` now, such as `:1.4`.
    public func owner(of name: String) throws -> String {
        let result = try run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                              "--method", "org.freedesktop.DBus.GetNameOwner", name])
        guard result.status == 0, let owner = result.stdout.split(separator: "'").dropFirst().first else {
            throw TestFailure.failed("no owner for \(name): \(result)")
        }
        return String(owner)
    }

    /// The unique name of the connection that process `pid` has on this bus.
    public func uniqueName(ofProcess pid: pid_t) throws -> String {
        let names = try run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                             "--method", "org.freedesktop.DBus.ListNames"]).stdout
            .split(separator: "'").filter { $0.hasPrefix(":") }.map(String.init)
        // Some of the names are gone by now (gdbus's own, for one): those are skipped.
        for name in names where (try? self.pid(of: name))?.contains("uint32 \(pid),") == true {
            return name
        }
        throw TestFailure.failed("process \(pid) has no connection on the bus")
    }
}
