import DBus

/// A running chimed that speaks another version of `io.github.chime.Scheduler1` than
/// this chime: an older daemon still running after an upgrade, say.
///
/// libdbus's own text for this ("Method "List" with signature "" on interface … doesn't
/// exist") tells nobody what to do; this names the versions and the fix in one sentence.
struct InterfaceMismatch: Equatable {
    /// The daemon's `Version` property, nil when it has none (older than the property).
    var version: String?
    /// The daemon's process id and name, when the bus knows them.
    var pid: UInt32?
    var process: String?
    /// Whether it serves this chime's interface at all (nil when it cannot be introspected).
    var implementsInterface: Bool?
    /// The `io.github.chime.*` interfaces it serves instead.
    var otherInterfaces: [String] = []
    /// What about the call it did not accept, for the end of the sentence.
    var detail: String?

    /// The error names a daemon of another interface version answers with. InvalidArgs
    /// is also chimed's everyday answer to bad input, so it counts only when the method's
    /// signature is what differs (see ``diagnose(_:member:arguments:lookups:)``).
    static let candidateErrors: Set<String> = [
        DBusError.unknownMethodName, "org.freedesktop.DBus.Error.UnknownInterface",
        "org.freedesktop.DBus.Error.UnknownObject", DBusError.invalidArgsName,
    ]

    /// Texts that implementations give for a call whose argument types differ from the
    /// method's: chimed's own dispatcher, GDBus and sd-bus. Used when introspection fails.
    static let signatureMismatchTexts = ["takes arguments of type", "does not match expected type", "Invalid arguments '"]

    /// Whether `error`, the answer to `member` called with `signature`, comes from a
    /// daemon of another interface version, judged by the daemon's introspection
    /// (`introspection`, nil when it did not answer).
    static func isMismatch(_ error: DBusError, member: String, signature: String, introspection: String?) -> Bool {
        guard candidateErrors.contains(error.name) else { return false }
        guard error.name == DBusError.invalidArgsName else { return true }
        guard let introspection else { return signatureMismatchTexts.contains { error.message.contains($0) } }
        let methods = IntrospectedNode(xml: introspection).interfaces[SchedulerClient.interface.rawValue]
        return methods?[member] != signature
    }

    /// Looks at the daemon that gave `error` in answer to `member`: nil when the error
    /// is not a version mismatch (bad input, an unknown id, a lost connection).
    static func diagnose(_ error: DBusError, member: String, arguments: [Value], lookups: BusLookups) -> InterfaceMismatch? {
        guard candidateErrors.contains(error.name) else { return nil }
        let name = SchedulerClient.busName.rawValue, path = SchedulerClient.path.rawValue
        let introspection = lookups.introspect(name, path)
        let signature = arguments.map(\.signature.rawValue).joined()
        guard isMismatch(error, member: member, signature: signature, introspection: introspection) else { return nil }

        var mismatch = InterfaceMismatch()
        let ours = SchedulerClient.interface.rawValue
        if let introspection {
            let node = IntrospectedNode(xml: introspection)
            mismatch.implementsInterface = node.interfaces[ours] != nil
            mismatch.otherInterfaces = node.interfaces.keys.filter { $0.hasPrefix("io.github.chime.") && $0 != ours }.sorted()
            if let methods = node.interfaces[ours] {
                if let theirs = methods[member] {
                    mismatch.detail = "its \(member) takes (\(theirs)), this chime sends (\(signature))"
                } else {
                    mismatch.detail = "it has no method \(member)"
                }
            }
        }
        mismatch.version = ([ours] + mismatch.otherInterfaces).lazy
            .compactMap { lookups.stringProperty(name, path, $0, "Version") }.first
        mismatch.pid = lookups.processID(of: name)
        mismatch.process = mismatch.pid.flatMap(processName)
        return mismatch
    }

    /// One sentence: what runs, what it lacks, and how to replace it.
    var sentence: String {
        let ours = SchedulerClient.interface.rawValue
        var daemon = "The running chimed" + (version.map { " " + $0 } ?? "")
        if let pid { daemon += " (pid \(pid)" + (process.map { $0 == "chimed" ? "" : ", " + $0 } ?? "") + ")" }
        if version == nil { daemon += ", of unknown version (it has no Version property)," }
        let problem: String
        if implementsInterface == false {
            let offers = otherInterfaces.isEmpty ? "" : " (it offers \(otherInterfaces.joined(separator: ", ")))"
            problem = "\(daemon) does not implement \(ours), the interface this chime \(chimeClientVersion) speaks\(offers)"
        } else {
            problem = "\(daemon) speaks another version of \(ours) than this chime \(chimeClientVersion)" + (detail.map { " (\($0))" } ?? "")
        }
        return problem + "; restart it with 'systemctl --user restart chimed.service', "
            + "or 'pkill -x chimed' and let the next chime command start the new one."
    }
}

/// This chime's version, as `chime --version` prints it.
var chimeClientVersion: String { Chime.configuration.version }

/// The interfaces and methods of one node of an introspection document.
///
/// A small scanner, not an XML parser: it reads the elements the D-Bus introspection
/// format uses (as libdbus, GDBus, sd-bus and dbus-python write them) without Foundation,
/// which chime keeps off its start-up path.
struct IntrospectedNode {
    /// Interface name → method name → the method's input signature.
    private(set) var interfaces: [String: [String: String]] = [:]

    init(xml: String) {
        var interface: String?
        var method: String?
        var depth = 0
        var rest = Substring(xml)
        while let open = rest.firstIndex(of: "<") {
            if rest[open...].hasPrefix("<!--") {
                guard let end = rest[open...].firstRange(of: "-->") else { break }
                rest = rest[end.upperBound...]
                continue
            }
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let tag = rest[rest.index(after: open)..<close]
            rest = rest[rest.index(after: close)...]
            if tag.hasPrefix("/") {
                switch tag.dropFirst().trimmingSpaces {
                case "interface": interface = nil
                case "method": method = nil
                case "node": depth -= 1
                default: break
                }
                continue
            }
            let element = Self.element(tag)
            let selfClosing = tag.hasSuffix("/")
            switch element.name {
            case "node":
                // Child nodes describe other objects; only the first node is this one.
                if !selfClosing { depth += 1 }
            case "interface" where depth == 1:
                guard let name = element.attributes["name"] else { continue }
                if interfaces[name] == nil { interfaces[name] = [:] }
                interface = selfClosing ? nil : name
            case "method" where interface != nil:
                guard let name = element.attributes["name"], let interface else { continue }
                interfaces[interface]?[name] = ""
                method = selfClosing ? nil : name
            case "arg":
                guard let interface, let method, let type = element.attributes["type"],
                      (element.attributes["direction"] ?? "in") == "in" else { continue }
                interfaces[interface]?[method, default: ""] += type
            default:
                break
            }
        }
    }

    /// An element's name and attributes from the text between `<` and `>`.
    private static func element(_ tag: Substring) -> (name: String, attributes: [String: String]) {
        var text = tag.hasSuffix("/") ? tag.dropLast() : tag
        let name = String(text.prefix { !$0.isWhitespace })
        text = text.dropFirst(name.count)
        var attributes: [String: String] = [:]
        while let equals = text.firstIndex(of: "=") {
            let key = text[..<equals].trimmingSpaces
            text = text[text.index(after: equals)...].drop { $0.isWhitespace }
            guard let quote = text.first, quote == "\"" || quote == "'" else { break }
            text = text.dropFirst()
            guard let end = text.firstIndex(of: quote) else { break }
            attributes[String(key)] = String(text[..<end])
            text = text[text.index(after: end)...]
        }
        return (name, attributes)
    }
}

extension Substring {
    /// Without leading and trailing white space.
    var trimmingSpaces: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}
