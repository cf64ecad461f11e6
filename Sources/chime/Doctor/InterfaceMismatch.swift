import ChimeAPI
import DBus
import Localization

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
            case nil: localized("it has no method %1$s", method.name)
            case method.inputSignature?: nil
            // TRANSLATORS: %2$s and %3$s are D-Bus type signatures, such as sssa{ss}.
            case let signature?: localized("its %1$s takes (%2$s), this chime sends (%3$s)", method.name, signature, method.inputSignature)
            }
        }
    }

    /// One sentence in English: what runs, what it lacks, and how to replace it (for
    /// `chime doctor --json`, whose text does not change with the language).
    var sentence: String {
        Localization.untranslated { localizedSentence }
    }

    /// The same sentence in the session's language.
    var localizedSentence: String {
        let ours = Scheduler1.name.rawValue
        var daemon = version.map { localized("The running chimed %1$s", $0) } ?? localized("The running chimed")
        if let pid {
            daemon = process.flatMap { $0 == "chimed" ? nil : $0 }.map { localized("%1$s (pid %2$s, %3$s)", daemon, pid, $0) }
                ?? localized("%1$s (pid %2$s)", daemon, pid)
        }
        if version == nil { daemon = localized("%1$s, of unknown version (it has no Version property),", daemon) }
        let problem: String
        if implementsInterface == false {
            let offers = otherInterfaces.joined(separator: ", ")
            problem = offers.isEmpty
                ? localized("%1$s does not implement %2$s, the interface this chime %3$s speaks", daemon, ours, chimeVersion)
                : localized("%1$s does not implement %2$s, the interface this chime %3$s speaks (it offers %4$s)",
                            daemon, ours, chimeVersion, offers)
        } else {
            problem = detail.map { localized("%1$s speaks another version of %2$s than this chime %3$s (%4$s)", daemon, ours, chimeVersion, $0) }
                ?? localized("%1$s speaks another version of %2$s than this chime %3$s", daemon, ours, chimeVersion)
        }
        return localized(
            "%1$s; restart it with 'systemctl --user restart chimed.service', or 'pkill -x chimed' and let the next chime command start the new one.",
            problem)
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
            differences.count == 1 ? first : pluralized("%1$s, and %2$d more of its methods differ", "%1$s, and %2$d more of its methods differ",
                                                        count: differences.count - 1, first, differences.count - 1)
        }
    }
}
