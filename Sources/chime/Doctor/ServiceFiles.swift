import Glibc

// MARK: - Activation files

extension Diagnosis {
    /// The directories a standard session bus reads activation files from, highest
    /// priority first (dbus-daemon(1), `<standard_session_servicedirs/>`).
    static func serviceDirectories() -> [String] {
        var directories: [String] = []
        if let runtime = environment("XDG_RUNTIME_DIR") { directories.append(runtime + "/dbus-1/services") }
        if let data = environment("XDG_DATA_HOME") ?? environment("HOME").map({ $0 + "/.local/share" }) {
            directories.append(data + "/dbus-1/services")
        }
        for data in (environment("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":") where data.hasPrefix("/") {
            directories.append(data + "/dbus-1/services")
        }
        directories.append("/usr/share/dbus-1/services")
        var seen: Set<String> = []
        return directories.filter { seen.insert($0).inserted }
    }

    /// The service directories of the running bus, read from the configuration file on
    /// its command line (`<servicedir>`, `<standard_session_servicedirs/>`, and the files
    /// it includes); nil when that cannot be learned (another bus implementation, a
    /// process of another user), and the standard directories stand in.
    static func busServiceDirectories(_ lookups: BusLookups) -> [String]? {
        // dbus-daemon answers for itself with its own pid.
        guard let pid = lookups.processID(of: "org.freedesktop.DBus"),
              let command = readSmallFile("/proc/\(pid)/cmdline") else { return nil }
        let arguments = command.split(separator: "\0").map(String.init)
        var config: String?
        for (index, argument) in arguments.enumerated() {
            if argument.hasPrefix("--config-file=") { config = String(argument.dropFirst("--config-file=".count)) }
            if argument == "--config-file", index + 1 < arguments.count { config = arguments[index + 1] }
            if argument == "--session", config == nil { config = "/usr/share/dbus-1/session.conf" }
        }
        guard let config, var directories = configServiceDirectories(config, depth: 0) else { return nil }
        var seen: Set<String> = []
        directories = directories.filter { seen.insert($0).inserted }
        return directories
    }

    /// The service directories one configuration file names, following `<include>` and
    /// `<includedir>` a few levels deep; nil when the file cannot be read.
    private static func configServiceDirectories(_ path: String, depth: Int) -> [String]? {
        guard depth < 4, let text = readSmallFile(path) else { return nil }
        let base = String(directory(of: path))
        let absolute = { (name: String) in name.hasPrefix("/") ? name : base + "/" + name }
        var directories: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            if rest[open...].hasPrefix("<!--") {
                // A comment may quote elements: the template of the tests' bus does.
                guard let end = rest[open...].firstRange(of: "-->") else { break }
                rest = rest[end.upperBound...]
                continue
            }
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let tag = rest[rest.index(after: open)..<close]
            let element = tag.split(whereSeparator: { $0 == " " || $0 == "/" }).first.map(String.init) ?? ""
            rest = rest[rest.index(after: close)...]
            let content = { String((rest.firstIndex(of: "<").map { rest[..<$0] } ?? rest).trimmingSpaces) }
            switch element {
            case "standard_session_servicedirs": directories += serviceDirectories()
            case "servicedir": directories.append(absolute(content()))
            case "include": directories += configServiceDirectories(absolute(content()), depth: depth + 1) ?? []
            case "includedir":
                let folder = absolute(content())
                for name in fileNames(in: folder).filter({ $0.hasSuffix(".conf") }).sorted() {
                    directories += configServiceDirectories(folder + "/" + name, depth: depth + 1) ?? []
                }
            default: break
            }
        }
        return directories
    }

    /// The `*.service` files in `directories` whose `Name=` is `name`.
    static func activationFiles(naming name: String, in directories: [String] = serviceDirectories()) -> [String] {
        directories.flatMap { directory in
            fileNames(in: directory).filter { $0.hasSuffix(".service") }.sorted().map { directory + "/" + $0 }.filter { path in
                guard let text = readSmallFile(path) else { return false }
                return text.split(whereSeparator: \.isNewline).contains { line in
                    let parts = line.split(separator: "=", maxSplits: 1)
                    return parts.count == 2 && parts[0].trimmingSpaces == "Name" && parts[1].trimmingSpaces == name
                }
            }
        }
    }

    static func directory(of path: String) -> Substring {
        path.lastIndex(of: "/").map { path[..<$0] } ?? Substring(path)
    }
}
