import JSON
import Localization

// MARK: - The report for people

extension Diagnosis {
    /// Sections of aligned `label: value` lines, then warnings, problems and the verdict.
    var report: String {
        // TRANSLATORS: %2$s is where the address came from: DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR.
        let address = bus.address.map { localized("%1$s (from %2$s)", $0, bus.source ?? "?") } ?? localized("not set")
        var busRows: [(String, String)] = [(localized("address"), address)]
        if let unique = bus.uniqueName { busRows.append((localized("connected as"), unique)) }
        // TRANSLATORS: the headings of chime doctor's sections.
        var tables = [(localized("Session bus"), busRows)]
        if let daemon { tables.append(("chimed", daemon.rows)) }
        if let config { tables.append((localized("Config"), config.rows)) }
        if let server { tables.append((localized("Notification server"), server.rows)) }
        if let badgeListeners { tables.append((localized("Badges (com.canonical.Unity.LauncherEntry)"), Self.rows(badgeListeners))) }
        if let places { tables.append((localized("Places (system bus)"), places.rows)) }
        if let calendars { tables.append((localized("Calendars"), Self.rows(calendars))) }
        // One width for all sections, so the values line up down the whole report.
        let width = (tables.flatMap { $0.1.map(\.0.count) }.max() ?? 0) + 2
        var sections = tables.map { Self.section($0.0, $0.1, width: width) }
        // Server names, versions and process names come from other programs: escaped.
        if !warnings.isEmpty { sections.append(localized("Warnings") + "\n" + warnings.map { "  - " + HumanText.escaped($0.text) }.joined(separator: "\n")) }
        if !problems.isEmpty { sections.append(localized("Problems") + "\n" + problems.map { "  - " + HumanText.escaped($0.text) }.joined(separator: "\n")) }
        sections.append(verdict)
        return sections.joined(separator: "\n\n")
    }

    var verdict: String {
        guard bus.connected else { return localized("Unhealthy: no session bus.") }
        guard problems.isEmpty else { return pluralized("Unhealthy: %1$d problem.", "Unhealthy: %1$d problems.", count: problems.count, problems.count) }
        return warnings.isEmpty ? localized("Healthy.")
            : pluralized("Healthy, with %1$d warning.", "Healthy, with %1$d warnings.", count: warnings.count, warnings.count)
    }

    private static func section(_ title: String, _ rows: [(String, String)], width: Int) -> String {
        ([title] + rows.map { label, value in
            "  " + label + ":" + String(repeating: " ", count: width - label.count - 1) + HumanText.escaped(value)
        }).joined(separator: "\n")
    }

    private static func rows(_ listeners: [BadgeListener]) -> [(String, String)] {
        guard !listeners.isEmpty else {
            return [(localized("listeners"), localized("no known dock or panel is on the bus; chimed announces badges all the same"))]
        }
        return listeners.map { ($0.certain ? localized("shown by") : localized("may be shown by"), "\($0.what) (\($0.busName))") }
    }
}

extension Diagnosis.Daemon {
    var rows: [(String, String)] {
        var rows: [(String, String)] = []
        guard running else {
            rows.append((localized("running"), localized("no")))
            rows.append((localized("activatable"), activatable ? localized("yes: the bus starts it on first use") : localized("no")))
            return rows
        }
        rows.append((localized("running"), localized("yes, %1$s", Diagnosis.describe(owner: owner, pid: pid, process: process))))
        if let mismatch {
            rows.append((localized("version"), localized("%1$s, another version of the interface", mismatch.version ?? localized("unknown"))))
        } else if let version {
            rows.append((localized("version"), interface.map { localized("%1$s, interface %2$s", version, $0) } ?? version))
        }
        if let store { rows.append((localized("store"), store)) }
        if let backup { rows.append((localized("backup"), HumanText.date(backup))) }
        if let recovery { rows.append((localized("recovered"), recovery)) }
        if let scheduled {
            let next = nextFire.map { time in
                let at = HumanText.date(time)
                return timeZone.map { localized("%1$s, next at %2$s (%3$s)", scheduled, at, $0) } ?? localized("%1$s, next at %2$s", scheduled, at)
            }
            rows.append((localized("scheduled"), next ?? "\(scheduled)"))
        }
        if let pending { rows.append((localized("pending"), localized("%1$s waiting for a notification server", pending))) }
        if version != nil, mismatch == nil {
            let server = notificationServer ?? localized("no notification server")
            rows.append((localized("following"), capabilitiesKnown == false ? localized("%1$s (capabilities unknown)", server) : server))
            // What chimed acts on, beside what the server says below: they differ until chimed asks again.
            if let capabilities { rows.append((localized("using"), capabilities.isEmpty ? localized("none") : capabilities.joined(separator: " "))) }
        }
        rows.append((localized("activatable"), activatable ? localized("yes") : localized("no")))
        return rows
    }
}

extension Diagnosis.Server {
    var rows: [(String, String)] {
        var rows: [(String, String)] = []
        guard running else {
            rows.append((localized("owner"), localized("none")))
            rows.append((localized("activatable"), activatable ? localized("yes: the bus starts one for the first notification") : localized("no")))
            rows += activationRows
            return rows
        }
        rows.append((localized("owner"), Diagnosis.describe(owner: owner, pid: pid, process: process)))
        if let name {
            var text = name
            if let version, !version.isEmpty { text += " " + version }
            // TRANSLATORS: %1$s is a notification server's name and version, %2$s its vendor.
            if let vendor, !vendor.isEmpty { text = localized("%1$s by %2$s", text, vendor) }
            if let specVersion, !specVersion.isEmpty { text = localized("%1$s, specification %2$s", text, specVersion) }
            rows.append((localized("server"), text))
        }
        if let capabilities { rows.append((localized("capabilities"), capabilities.isEmpty ? localized("none") : capabilities.joined(separator: " "))) }
        // TRANSLATORS: %1$s is a capability of the Desktop Notifications specification, such as body-markup.
        for fallback in fallbacks { rows.append((localized("without %1$s", fallback.capability), fallback.instead.text)) }
        for quirk in quirks { rows.append((localized("quirk"), quirk.note.text)) }
        if queuedOwners.count > 1 { rows.append((localized("queued"), queuedOwners.dropFirst().joined(separator: ", "))) }
        rows += activationRows
        return rows
    }

    private var activationRows: [(String, String)] {
        var rows: [(String, String)] = []
        if !activationFiles.isEmpty { rows.append((localized("activation"), activationFiles.joined(separator: ", "))) }
        // Found on disk, yet the bus does not offer them: it reads other directories, or has not reloaded.
        if !unofferedActivationFiles.isEmpty {
            rows.append((localized("activation"), localized("%1$s (not offered by this bus)", unofferedActivationFiles.joined(separator: ", "))))
        }
        return rows
    }
}

extension Diagnosis {
    /// ":1.7, pid 1234 (chimed)", or as much of it as is known.
    static func describe(owner: String?, pid: UInt32?, process: String?) -> String {
        var parts: [String] = []
        if let pid { parts.append(process.map { localized("pid %1$s (%2$s)", pid, $0) } ?? localized("pid %1$s", pid)) }
        if let owner { parts.append(owner) }
        return parts.isEmpty ? localized("unknown") : parts.joined(separator: ", ")
    }
}

// MARK: - The report for scripts

extension Diagnosis {
    /// Every key is always there; what is unknown or does not apply is null.
    var json: JSONText {
        .object([
            ("healthy", .bool(exitStatus == 0)),
            ("exitStatus", .integer(Int64(exitStatus))),
            ("problems", .strings(problems.map(\.english))),
            ("warnings", .strings(warnings.map(\.english))),
            ("bus", .object([
                ("address", .string(bus.address)),
                ("addressSource", .string(bus.source)),
                ("connected", .bool(bus.connected)),
                ("uniqueName", .string(bus.uniqueName)),
            ])),
            ("chimed", daemon.map { daemon in .object([
                ("running", .bool(daemon.running)),
                ("activatable", .bool(daemon.activatable)),
                ("owner", .string(daemon.owner)),
                ("pid", .integer(daemon.pid)),
                ("process", .string(daemon.process)),
                ("version", .string(daemon.version)),
                ("interface", .string(daemon.interface)),
                ("interfaceMismatch", .string(daemon.mismatch?.sentence)),
                ("store", .string(daemon.store)),
                ("scheduled", .integer(daemon.scheduled)),
                ("pending", .integer(daemon.pending)),
                ("nextFire", .string(daemon.nextFire.map(HumanText.isoTime))),
                ("timeZone", .string(daemon.timeZone)),
                ("notificationServer", .string(daemon.notificationServer)),
                ("capabilitiesKnown", .bool(daemon.capabilitiesKnown)),
                ("capabilities", .strings(daemon.capabilities)),
                ("localSound", .bool(daemon.localSound)),
                ("lastLocalSound", .string(daemon.lastLocalSound)),
                ("backup", .string(daemon.backup.map(HumanText.isoTime))),
                ("recovery", .string(daemon.recovery)),
            ]) } ?? .null),
            ("config", config?.json ?? .null),
            ("notificationServer", server.map { server in .object([
                ("running", .bool(server.running)),
                ("activatable", .bool(server.activatable)),
                ("owner", .string(server.owner)),
                ("pid", .integer(server.pid)),
                ("process", .string(server.process)),
                ("name", .string(server.name)),
                ("vendor", .string(server.vendor)),
                ("version", .string(server.version)),
                ("specVersion", .string(server.specVersion)),
                ("capabilities", .strings(server.capabilities)),
                ("fallbacks", .array(server.fallbacks.map { .object([("capability", .string($0.capability)), ("instead", .string($0.instead.english))]) })),
                ("quirks", .array(server.quirks.map { .object([("key", .string($0.key)), ("what", .string($0.note.english))]) })),
                ("queuedOwners", .strings(server.queuedOwners)),
                ("activationFiles", .strings(server.activationFiles)),
                ("unofferedActivationFiles", .strings(server.unofferedActivationFiles)),
            ]) } ?? .null),
            ("badges", badgeListeners.map { listeners in .object([
                ("listeners", .array(listeners.map { .object([
                    ("busName", .string($0.busName)), ("what", .string($0.what)), ("certain", .bool($0.certain)),
                ]) })),
            ]) } ?? .null),
            ("places", places?.json ?? .null),
            ("calendars", calendars.map { .array($0.map(\.json)) } ?? .null),
        ])
    }
}
