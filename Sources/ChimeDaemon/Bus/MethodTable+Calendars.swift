import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import WebDAV

/// `AddCalendar`, `RemoveCalendar` and `Calendars`: the calendars chimed follows
/// (``Calendars``), as chime calendar adds, removes and lists them.
extension MethodTable {
    func addCalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let options = try CalendarOptions(call.entries(1), method: "AddCalendar")
        let location = call.string(0)
        guard location.hasPrefix("/") else {
            let settings = try options.settings()
            return try calendars.add(collection: location, name: options.name, settings: settings, password: options.password) { [unowned self] result in
                switch result {
                case .success(let collection):
                    // Answered once the first sync ended, so that the caller can say what it holds.
                    collection.whenRead { [unowned self] in
                        let count = self.calendars.reminderCounts()[collection.calendar.name] ?? 0
                        responder.reply([.variantDictionary(self.entries(of: collection, reminders: count))])
                    }
                case .failure(let error): responder.fail(error)
                }
            }
        }
        if let key = options.caldavOnly.first {
            throw .invalidArgs("\(key): an option of a CalDAV calendar; a folder takes name only.")
        }
        try calendars.add(location: location, name: options.name) { [unowned self] result in
            switch result {
            case .success(let folder):
                // Answered once read, so that the caller can say what it holds.
                folder.whenRead { [unowned self] in
                    let count = self.calendars.reminderCounts()[folder.calendar.name] ?? 0
                    responder.reply([.variantDictionary(self.entries(of: folder, reminders: count))])
                }
            case .failure(let error): responder.fail(error)
            }
        }
    }

    func discoverCalendars(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let options = try CalendarOptions(call.entries(1), method: "DiscoverCalendars")
        if let key = options.given.first(where: { !["user", "password", "passwordCommand", "ca"].contains($0) }) {
            throw .invalidArgs("\(key): not an option of DiscoverCalendars; it takes user, password, passwordCommand and ca.")
        }
        let settings = try options.settings()
        let location = call.string(0)
        let lower = location.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://") else {
            throw .invalidArgs("location: '\(location)' is not an https:// address.")
        }
        if lower.hasPrefix("http://"), !DAVURL.isLoopback(location) {
            throw .invalidArgs("location: '\(location)' is plain http, which would send the password unencrypted; use https://.")
        }
        let discover = { [unowned self] (password: String) in
            let discovery = CalDAVDiscovery(http: self.calendars.httpClient(), user: settings.user, password: password, ca: settings.ca)
            discovery.find(at: location) { result in
                _ = discovery
                switch result {
                case .success(let found):
                    responder.reply([.array(element: "a{sv}", found.map { calendar in
                        var entries: [(DiscoveredKey, Value)] = [
                            (.location, .string(calendar.url)), (.name, .string(calendar.displayName)),
                            (.components, .stringArray(calendar.components)), (.writable, .bool(calendar.writable)),
                        ]
                        if let color = calendar.color { entries.append((.color, .string(color))) }
                        return .variantDictionary(entries.map { ($0.0.rawValue, $0.1) })
                    })])
                case .failure(let error): responder.fail(error)
                }
            }
        }
        if let password = options.password { return discover(password) }
        guard let command = settings.passwordCommand else { throw .invalidArgs("password: give the password, or a passwordCommand that prints it.") }
        calendars.passwords.run(command: command) { result in
            switch result {
            case .success(let password): discover(password)
            case .failure(let failure): responder.fail(DBusError(name: ChimeError.failed, message: failure.description))
            }
        }
    }

    func syncCalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        try calendars.sync(name: call.string(0)) { result in
            switch result {
            case .success(let reports): responder.reply([.array(element: "a{sv}", reports.map { Self.entries(of: $0.1, name: $0.0) })])
            case .failure(let error): responder.fail(error)
            }
        }
    }

    func setCalendarPassword(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let name = call.string(0)
        try calendars.setPassword(call.string(1), for: name) { result in
            switch result {
            case .success(let report): responder.reply([Self.entries(of: report, name: name)])
            case .failure(let error): responder.fail(error)
            }
        }
    }

    private static func entries(of report: CalDAVCalendar.Report, name: String) -> Value {
        var entries: [(SyncReportKey, Value)] = [
            (.name, .string(name)), (.new, .uint32(UInt32(clamping: report.new))), (.updated, .uint32(UInt32(clamping: report.updated))),
            (.removed, .uint32(UInt32(clamping: report.removed))), (.sent, .uint32(UInt32(clamping: report.sent))),
        ]
        if let error = report.error { entries.append((.error, .string(error))) }
        return .variantDictionary(entries.map { ($0.0.rawValue, $0.1) })
    }

    func removeCalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        try calendars.remove(name: call.string(0)) { result in
            switch result {
            case .success(let count): responder.reply([.uint32(UInt32(clamping: count))])
            case .failure(let error): responder.fail(error)
            }
        }
    }

    func listCalendars(_ call: MethodCall) throws(DBusError) -> [Value] {
        let counts = calendars.reminderCounts()
        let described = calendars.folders.map { ($0.calendar.name, entries(of: $0, reminders: counts[$0.calendar.name] ?? 0)) }
            + calendars.collections.map { ($0.calendar.name, entries(of: $0, reminders: counts[$0.calendar.name] ?? 0)) }
        return [.array(element: "a{sv}", described.sorted { $0.0 < $1.0 }.map { .variantDictionary($0.1) })]
    }

    /// A CalDAV calendar as ``ChimeAPI/CalendarKey`` describes it.
    private func entries(of collection: CalDAVCalendar, reminders: Int) -> [(String, Value)] {
        let (state, error): (String, String?) = switch collection.state {
        case .syncing: ("syncing", nil)
        case .synced: ("synced", nil)
        case .offline(let sentence): ("offline", sentence)
        case .failed(let sentence): (sentence, sentence)
        }
        let calendar = collection.calendar, settings = calendar.caldav
        var entries: [(CalendarKey, Value)] = [
            (.name, .string(calendar.name)), (.kind, .string(calendar.kind.rawValue)), (.location, .string(calendar.location)),
            (.state, .string(state)), (.reminders, .uint32(UInt32(clamping: reminders))),
            (.problems, .stringArray(collection.problems.sorted { $0.key < $1.key }.flatMap(\.value))),
            (.user, .string(settings?.user ?? "")), (.shareDismissals, .bool(settings?.shareDismissals ?? true)),
            (.interval, .uint32(UInt32(clamping: settings?.interval ?? CalDAVDefaults.interval))),
            (.queued, .uint32(UInt32(clamping: collection.queued))),
        ]
        if let synced = collection.lastSync {
            entries += [(.lastSync, .string(NotificationEncoding.isoText(synced, zone: .current))),
                        (.lastSyncTimestamp, .int64(NotificationEncoding.seconds(synced)))]
        }
        if let writable = collection.writable { entries.append((.writable, .bool(writable))) }
        if let error { entries.append((.error, .string(error))) }
        return entries.map { ($0.0.rawValue, $0.1) }
    }

    /// One calendar as ``ChimeAPI/CalendarKey`` describes it.
    private func entries(of folder: VdirFolder, reminders: Int) -> [(String, Value)] {
        let state = switch folder.state {
        case .reading: "reading"
        case .watching: "watching"
        case .missing: "missing"
        case .failed(let sentence): sentence
        }
        let problems = folder.problems.sorted { $0.key < $1.key }.flatMap(\.value)
        var entries: [(CalendarKey, Value)] = [
            (.name, .string(folder.calendar.name)), (.kind, .string(folder.calendar.kind.rawValue)),
            (.location, .string(folder.calendar.location)), (.state, .string(state)),
            (.reminders, .uint32(UInt32(clamping: reminders))), (.problems, .stringArray(problems)),
        ]
        if let read = folder.lastRead {
            entries += [(.lastRead, .string(NotificationEncoding.isoText(read, zone: .current))),
                        (.lastReadTimestamp, .int64(NotificationEncoding.seconds(read)))]
        }
        return entries.map { ($0.0.rawValue, $0.1) }
    }
}

/// AddCalendar's and DiscoverCalendars' options, checked.
struct CalendarOptions {
    var name = ""
    var user: String?
    var password: String?
    var passwordCommand: String?
    var ca: String?
    var shareDismissals: Bool?
    var interval: Int?
    /// The keys given.
    var given: [String] = []
    /// Those given that only a CalDAV calendar takes.
    var caldavOnly: [String] { given.filter { $0 != CalendarKey.name.rawValue } }

    init(_ entries: [(key: String, value: Value)], method: String) throws(DBusError) {
        for (key, value) in entries {
            let value = value.unwrapped
            given.append(key)
            switch key {
            case "name": name = try Self.text(value, key)
            case "user": user = try Self.text(value, key)
            case "password": password = try Self.text(value, key)
            case "passwordCommand": passwordCommand = try Self.text(value, key)
            case "ca": ca = try Self.text(value, key)
            case "shareDismissals":
                guard let flag = value.boolValue else { throw .invalidArgs("shareDismissals: expected b.") }
                shareDismissals = flag
            case "interval":
                guard let seconds = value.integerValue, seconds >= CalDAVDefaults.shortestInterval, seconds <= 86_400 * 7 else {
                    throw .invalidArgs("interval: expected seconds from \(CalDAVDefaults.shortestInterval) to a week.")
                }
                interval = Int(seconds)
            default:
                throw .invalidArgs("\(key): not an option of \(method); it takes name, user, password, passwordCommand, ca, shareDismissals and interval.")
            }
        }
        if password != nil, passwordCommand != nil {
            throw .invalidArgs("password: give the password or a passwordCommand, not both.")
        }
        if let ca, !ca.hasPrefix("/") { throw .invalidArgs("ca: '\(ca)' is not an absolute path.") }
    }

    /// The settings of a CalDAV calendar these options make.
    func settings() throws(DBusError) -> CalDAVSettings {
        guard let user, !user.isEmpty else { throw .invalidArgs("user: a CalDAV calendar needs the user it is read as.") }
        if let passwordCommand, passwordCommand.allSatisfy(\.isWhitespace) {
            throw .invalidArgs("passwordCommand: it is empty.")
        }
        return CalDAVSettings(user: user, passwordCommand: passwordCommand, ca: ca, shareDismissals: shareDismissals ?? true,
                              interval: interval ?? CalDAVDefaults.interval)
    }

    private static func text(_ value: Value, _ key: String) throws(DBusError) -> String {
        guard let text = value.stringValue else { throw .invalidArgs("\(key): expected s.") }
        return text
    }
}
