import CDesktopLibs
import ChimeAPI
import DBus

/// A running chimed that speaks another version of ``ChimeAPI/Scheduler1`` than
/// this chime: an older daemon still running after an upgrade, say. What it serves,
/// read from its introspection, is compared with this chime's ``ChimeAPI/Scheduler1``.
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
    /// What about its methods differs, for the end of the sentence.
    var detail: String?

    /// The error names a daemon of another interface version answers with. InvalidArgs
    /// is also chimed's everyday answer to bad input, so it counts only when the method's
    /// signature is what differs (see ``isMismatch(_:method:introspection:)``).
    static let candidateErrors: Set<String> = [
        DBusError.unknownMethodName, "org.freedesktop.DBus.Error.UnknownInterface",
        "org.freedesktop.DBus.Error.UnknownObject", DBusError.invalidArgsName,
    ]

    /// Texts that implementations give for a call whose argument types differ from the
    /// method's: chimed's own dispatcher, GDBus and sd-bus. Used when introspection fails.
    static let signatureMismatchTexts = ["takes arguments of type", "does not match expected type", "Invalid arguments '"]

    /// Whether `error`, the answer to `method`, comes from a daemon of another interface
    /// version, judged by what the daemon serves (`introspection`, nil when it did not say).
    static func isMismatch(_ error: DBusError, method: MethodDeclaration, introspection: IntrospectedNode?) -> Bool {
        guard candidateErrors.contains(error.name) else { return false }
        guard error.name == DBusError.invalidArgsName else { return true }
        guard let introspection else { return signatureMismatchTexts.contains { error.message.contains($0) } }
        return !differences(introspection, in: [method]).isEmpty
    }

    /// Looks at the daemon that gave `error` in answer to `method`: nil when the error
    /// is not a version mismatch (bad input, an unknown id, a lost connection).
    static func diagnose(_ error: DBusError, calling method: MethodDeclaration, lookups: BusLookups) -> InterfaceMismatch? {
        guard candidateErrors.contains(error.name) else { return nil }
        let node = lookups.introspect(ChimeBus.name.rawValue, ChimeBus.path.rawValue).flatMap(IntrospectedNode.init(xml:))
        guard isMismatch(error, method: method, introspection: node) else { return nil }
        var mismatch = InterfaceMismatch(node, methods: [method])
        let name = ChimeBus.name.rawValue, path = ChimeBus.path.rawValue
        mismatch.version = ([Scheduler1.name.rawValue] + mismatch.otherInterfaces).lazy
            .compactMap { lookups.stringProperty(name, path, $0, Scheduler1.version.name) }.first
        mismatch.pid = lookups.processID(of: name)
        mismatch.process = mismatch.pid.flatMap(processName)
        return mismatch
    }

    /// Each method of `methods` that `node` serves otherwise, as a clause; none when it
    /// does not serve this chime's interface at all.
    static func differences(_ node: IntrospectedNode, in methods: [MethodDeclaration]) -> [String] {
        guard let theirs = node.interfaces[Scheduler1.name.rawValue] else { return [] }
        return methods.compactMap { method in
            switch theirs[method.name.rawValue] {
            case nil: "it has no method \(method.name)"
            case method.inputSignature?: nil
            case let signature?: "its \(method.name) takes (\(signature)), this chime sends (\(method.inputSignature))"
            }
        }
    }

    /// One sentence: what runs, what it lacks, and how to replace it.
    var sentence: String {
        let ours = Scheduler1.name.rawValue
        var daemon = "The running chimed" + (version.map { " " + $0 } ?? "")
        if let pid { daemon += " (pid \(pid)" + (process.map { $0 == "chimed" ? "" : ", " + $0 } ?? "") + ")" }
        if version == nil { daemon += ", of unknown version (it has no Version property)," }
        let problem: String
        if implementsInterface == false {
            let offers = otherInterfaces.isEmpty ? "" : " (it offers \(otherInterfaces.joined(separator: ", ")))"
            problem = "\(daemon) does not implement \(ours), the interface this chime \(chimeVersion) speaks\(offers)"
        } else {
            problem = "\(daemon) speaks another version of \(ours) than this chime \(chimeVersion)" + (detail.map { " (\($0))" } ?? "")
        }
        return problem + "; restart it with 'systemctl --user restart chimed.service', "
            + "or 'pkill -x chimed' and let the next chime command start the new one."
    }
}

extension InterfaceMismatch {
    /// What `node` serves, held against `methods` of this chime's interface.
    init(_ node: IntrospectedNode?, methods: [MethodDeclaration]) {
        guard let node else { return }
        let ours = Scheduler1.name.rawValue
        implementsInterface = node.interfaces[ours] != nil
        otherInterfaces = node.interfaces.keys.filter { $0.hasPrefix("io.github.chime.") && $0 != ours }.sorted()
        let differences = Self.differences(node, in: methods)
        detail = differences.first.map { first in
            differences.count == 1 ? first : first + ", and \(differences.count - 1) more of its methods differ"
        }
    }
}

/// The interfaces and methods of one object, read from its introspection document with
/// GIO's parser (loaded only when a daemon is looked at this closely; see CDesktopLibs).
struct IntrospectedNode: Equatable {
    /// Interface name → method name → the method's input signature.
    private(set) var interfaces: [String: [String: String]] = [:]

    /// Nil when the text is not introspection data, or GIO cannot be loaded.
    init?(xml: String) {
        guard let node = chime_node_info_new(xml) else { return nil }
        defer { chime_node_info_free(node) }
        // Child nodes describe other objects; only the node's own interfaces are read.
        for interface in Self.elements(node.pointee.interfaces) {
            var methods: [String: String] = [:]
            for method in Self.elements(interface.pointee.methods) {
                methods[String(cString: method.pointee.name)] =
                    Self.elements(method.pointee.in_args).map { String(cString: $0.pointee.signature) }.joined()
            }
            interfaces[String(cString: interface.pointee.name)] = methods
        }
    }

    /// The elements of one of GIO's NULL-terminated arrays.
    private static func elements<T>(_ array: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?) -> [UnsafeMutablePointer<T>] {
        guard let array else { return [] }
        var elements: [UnsafeMutablePointer<T>] = []
        while let element = array[elements.count] { elements.append(element) }
        return elements
    }
}
