import ChimeCore
import DBus
import Foundation
import Logging

/// `io.github.chime.Scheduler1`: the daemon's API on the bus.
///
/// ``interface`` is the one table of methods, signals and properties; a test keeps
/// `dbus/io.github.chime.Scheduler1.xml` equal to the introspection it yields.
final class SchedulerService {
    static let busName = try! BusName("io.github.chime.Chime")
    static let path = try! ObjectPath("/io/github/chime/Chime")
    static let interfaceName = try! InterfaceName("io.github.chime.Scheduler1")
    static let notFoundName = "io.github.chime.Error.NotFound"

    private let connection: Connection
    private let client: NotificationClient
    private let presenter: Presenter
    private let store: Store
    private let scheduler: Scheduler
    private let commits: CommitQueue
    private let logger: Logger
    private let now: () -> Date
    private let commands: CommandRunner
    private let launcher: AppLauncher
    static let launcherEntry = InterfaceName(rawValue: "com.canonical.Unity.LauncherEntry")!

    init(connection: Connection, client: NotificationClient, presenter: Presenter, store: Store, scheduler: Scheduler,
         commits: CommitQueue, commands: CommandRunner, logger: Logger, now: @escaping () -> Date = Date.init) {
        self.connection = connection
        self.commands = commands
        self.launcher = AppLauncher(connection: connection, logger: logger, placement: commands.placement)
        self.client = client
        self.presenter = presenter
        self.store = store
        self.scheduler = scheduler
        self.commits = commits
        self.logger = logger
        self.now = now
        presenter.onPress = { [unowned self] press in self.pressed(press) }
        presenter.onClosed = { [unowned self] closing in self.closed(closing) }
        scheduler.onFired = { [unowned self] notification, lateBy, shown in
            guard shown else { return }
            self.applyBadge(of: notification.alert)
            var entries = NotificationEncoding.entries(notification, zone: TimeZone.current)
            entries.append(("lateBy", .double(lateBy)))
            self.emit("Fired", [.string(notification.id), .variantDictionary(entries)])
        }
    }

    // MARK: - The table

    var interface: Interface {
        Interface(
            Self.interfaceName,
            methods: [
                Method(name("PresentNow"), inputs: [Argument("notification", "a{sv}")], outputs: [Argument("id", "s")]) {
                    [unowned self] call throws(DBusError) in
                    [.string(try self.present(try AlertDecoding.decode(typed: try Self.entries(call.arguments[0]))))]
                },
                Method(name("PresentNowSimple"),
                       inputs: [Argument("title", "s"), Argument("body", "s"), Argument("options", "a{ss}")],
                       outputs: [Argument("id", "s")]) { [unowned self] call throws(DBusError) in
                    let alert = try AlertDecoding.decode(title: Self.string(call.arguments[0]), body: Self.string(call.arguments[1]),
                                                         options: try Self.stringEntries(call.arguments[2]))
                    return [.string(try self.present(alert))]
                },
                Method(name("Schedule"), inputs: [Argument("notification", "a{sv}")], outputs: [Argument("id", "s")],
                       handler: .deferred { [unowned self] call, responder throws(DBusError) in
                    var fields = ScheduleFields()
                    let alert = try AlertDecoding.decode(typed: try Self.entries(call.arguments[0])) { key, value throws(FieldError) in
                        try fields.set(key, typed: value)
                    }
                    try self.schedule(alert, fields, responder)
                }),
                Method(name("ScheduleSimple"),
                       inputs: [Argument("when", "s"), Argument("title", "s"), Argument("body", "s"), Argument("options", "a{ss}")],
                       outputs: [Argument("id", "s")], handler: .deferred { [unowned self] call, responder throws(DBusError) in
                    var fields = ScheduleFields()
                    fields.when = Self.string(call.arguments[0])
                    let alert = try AlertDecoding.decode(
                        title: Self.string(call.arguments[1]), body: Self.string(call.arguments[2]),
                        options: try Self.stringEntries(call.arguments[3])
                    ) { key, text throws(FieldError) in
                        guard key != "when" else { throw FieldError(key, "is given as an argument of its own, not as an option.") }
                        return try fields.set(key, text: text)
                    }
                    try self.schedule(alert, fields, responder)
                }),
                Method(name("Cancel"), inputs: [Argument("id", "s")], handler: .deferred { [unowned self] call, responder in
                    let id = Self.string(call.arguments[0])
                    self.cancel(responder) { db in
                        let deleted = try self.store.cancel(ids: [id], at: self.now(), detail: "", in: db)
                        guard !deleted.isEmpty else { throw Self.notFound(id) }
                        return deleted
                    } reply: { _ in [] }
                }),
                Method(name("CancelAll"), outputs: [Argument("count", "u")], handler: .deferred { [unowned self] _, responder in
                    self.cancel(responder) { db in
                        try self.store.cancelScheduled(at: self.now(), detail: "All scheduled were cancelled.", in: db)
                    } reply: { [.uint32(UInt32($0.count))] }
                }),
                Method(name("CancelMatching"), inputs: [Argument("key", "s"), Argument("value", "s")], outputs: [Argument("count", "u")],
                       handler: .deferred { [unowned self] call, responder in
                    let key = Self.string(call.arguments[0]), value = Self.string(call.arguments[1])
                    self.cancel(responder) { db in
                        try self.store.cancel(ids: try self.store.ids(matchingKey: key, value: value, in: db), at: self.now(),
                                              detail: "Matched \(key)=\(value).", in: db)
                    } reply: { [.uint32(UInt32($0.count))] }
                }),
                Method(name("Get"), inputs: [Argument("id", "s")], outputs: [Argument("notification", "a{sv}")]) {
                    [unowned self] call throws(DBusError) in
                    let id = Self.string(call.arguments[0])
                    guard let notification = try self.read({ () throws(StoreError) in try self.store.notification(id: id) }) else {
                        throw Self.notFound(id)
                    }
                    return [.variantDictionary(NotificationEncoding.entries(notification, zone: TimeZone.current))]
                },
                Method(name("GetJSON"), inputs: [Argument("id", "s")], outputs: [Argument("json", "s")]) {
                    [unowned self] call throws(DBusError) in
                    let id = Self.string(call.arguments[0])
                    guard let notification = try self.read({ () throws(StoreError) in try self.store.notification(id: id) }) else {
                        throw Self.notFound(id)
                    }
                    let entries = NotificationEncoding.entries(notification, zone: TimeZone.current)
                    return [.string(NotificationEncoding.jsonText(.variantDictionary(entries)))]
                },
                Method(name("List"), outputs: [Argument("notifications", "aa{sv}")]) { [unowned self] _ throws(DBusError) in
                    [.array(element: "a{sv}", try self.list().map { .variantDictionary($0) })]
                },
                Method(name("ListJSON"), outputs: [Argument("json", "s")]) { [unowned self] _ throws(DBusError) in
                    [.string(NotificationEncoding.json(try self.list()))]
                },
                Method(name("History"), inputs: [Argument("limit", "u")], outputs: [Argument("events", "aa{sv}")]) {
                    [unowned self] call throws(DBusError) in
                    let limit = try HistoryEncoding.limit(call.arguments[0])
                    let events = try self.read { () throws(StoreError) in try self.store.history(limit: limit) }
                    return [HistoryEncoding.array(events, zone: TimeZone.current)]
                },
                Method(name("HistoryJSON"), inputs: [Argument("limit", "u")], outputs: [Argument("json", "s")]) {
                    [unowned self] call throws(DBusError) in
                    let limit = try HistoryEncoding.limit(call.arguments[0])
                    let events = try self.read { () throws(StoreError) in try self.store.history(limit: limit) }
                    return [.string(HistoryEncoding.json(events, zone: TimeZone.current))]
                },
                Method(name("HistoryOf"), inputs: [Argument("id", "s"), Argument("limit", "u")],
                       outputs: [Argument("events", "aa{sv}")]) { [unowned self] call throws(DBusError) in
                    let id = Self.string(call.arguments[0])
                    let limit = try HistoryEncoding.limit(call.arguments[1])
                    guard let events = try self.read({ () throws(StoreError) in try self.store.history(of: id, limit: limit) }) else {
                        throw Self.notFound(id)
                    }
                    return [HistoryEncoding.array(events, zone: TimeZone.current)]
                },
                Method(name("NextFireTimes"),
                       inputs: [Argument("when", "s"), Argument("options", "a{ss}"), Argument("count", "u")],
                       outputs: [Argument("times", "as")]) { [unowned self] call throws(DBusError) in
                    var fields = ScheduleFields()
                    fields.when = Self.string(call.arguments[0])
                    let zone = TimeZone.current
                    let instant = self.now()
                    let options = try Self.stringEntries(call.arguments[1])
                    do throws(FieldError) {
                        for (key, text) in options {
                            guard key != "when", try fields.set(key, text: text) else {
                                throw FieldError(key, "is not a schedule field; use \(ScheduleFields.keys.dropFirst().joined(separator: ", ")).")
                            }
                        }
                        guard case .uint32(let count) = call.arguments[2], (1...1000).contains(count) else {
                            throw FieldError("count", "must be between 1 and 1000.")
                        }
                        let rule = try fields.rule(now: instant, systemZone: zone)
                        let times = rule.upcoming(from: instant, count: Int(count), systemZone: zone)
                        return [.stringArray(times.map { NotificationEncoding.isoText($0, zone: zone) })]
                    } catch {
                        throw .invalidArgs(error.description)
                    }
                },
                Method(name("Status"), outputs: [Argument("status", "a{sv}")]) { [unowned self] _ in
                    [.variantDictionary(self.status())]
                },
                Method(name("SetBadge"), inputs: [Argument("desktopEntry", "s"), Argument("count", "u")],
                       handler: .deferred { [unowned self] call, responder throws(DBusError) in
                    let entry = try Self.desktopEntry(Self.string(call.arguments[0]))
                    guard case .uint32(let count) = call.arguments[1] else { throw .invalidArgs("count: expected u.") }
                    self.setBadge(entry, Int(count)) { error in
                        if let error { responder.fail(error) } else { responder.reply([]) }
                    }
                }),
                Method(name("GetBadge"), inputs: [Argument("desktopEntry", "s")], outputs: [Argument("count", "u")]) {
                    [unowned self] call throws(DBusError) in
                    let entry = try Self.desktopEntry(Self.string(call.arguments[0]))
                    return [.uint32(UInt32(clamping: try self.badge(entry)))]
                },
                Method(name("InvokeAction"), inputs: [Argument("id", "s"), Argument("action", "s")]) {
                    [unowned self] call throws(DBusError) in
                    let id = Self.string(call.arguments[0]), key = Self.string(call.arguments[1])
                    guard let alert = try self.alert(for: id) else { throw Self.notFound(id) }
                    let keys = self.presenter.expand(alert).allActions.map(\.key)
                    guard keys.contains(key) else {
                        throw .invalidArgs("'\(key)' is not an action of \(id); it has \(keys.isEmpty ? "none" : keys.joined(separator: ", ")).")
                    }
                    self.pressed(Presenter.Press(id: id, key: key, alert: alert, kind: .scheduled))
                    self.presenter.dismiss(id: id, after: key)
                    return []
                },
            ],
            signals: [
                SignalDescription(name("Fired"), arguments: [Argument("id", "s"), Argument("notification", "a{sv}")]),
                SignalDescription(name("Completed"), arguments: [Argument("id", "s")]),
                SignalDescription(name("ActionInvoked"),
                                  arguments: [Argument("id", "s"), Argument("action", "s"), Argument("userInfo", "a{sv}")]),
                SignalDescription(name("Closed"), arguments: [Argument("id", "s"), Argument("reason", "u")]),
            ],
            properties: [
                Property("Version", "s") { .string(chimeVersion) },
            ]
        )
    }

    private func name(_ text: String) -> MemberName {
        // The table's names are literals checked by the introspection test.
        MemberName(rawValue: text)!
    }

    // MARK: - Arguments (types already checked against the table)

    private static func string(_ value: Value) -> String { value.stringValue ?? "" }

    private static func entries(_ value: Value) throws(DBusError) -> [(key: String, value: Value)] {
        guard let entries = value.stringKeyedEntries else { throw .invalidArgs("Expected a{sv}.") }
        return entries
    }

    private static func stringEntries(_ value: Value) throws(DBusError) -> [(key: String, value: String)] {
        guard let entries = value.stringKeyedEntries else { throw .invalidArgs("Expected a{ss}.") }
        return entries.compactMap { entry in entry.value.stringValue.map { (key: entry.key, value: $0) } }
    }

    static func notFound(_ id: String) -> DBusError {
        DBusError(name: notFoundName, message: "No notification has the id '\(id)'.")
    }

    // MARK: - Methods

    private func present(_ alert: Alert) throws(DBusError) -> String {
        var id = NotificationID.random()
        while presenter.alert(for: id) != nil { id = NotificationID.random() }
        try presenter.present(alert, id: id)
        logger.info("Presenting \(id): \(alert.title)")
        applyBadge(of: alert)
        return id
    }

    // MARK: - Badges

    /// A desktop entry id as docks know it: without `.desktop`, and never empty.
    private static func desktopEntry(_ text: String) throws(DBusError) -> String {
        let entry = text.hasSuffix(".desktop") ? String(text.dropLast(8)) : text
        guard !entry.isEmpty, !entry.contains("/") else {
            throw .invalidArgs("desktopEntry: '\(text)' is not a desktop entry id such as org.gnome.Calendar.")
        }
        return entry
    }

    private func badge(_ entry: String) throws(DBusError) -> Int {
        Int(try read { () throws(StoreError) in try store.meta("badge:" + entry) } ?? "") ?? 0
    }

    /// A notification's badge number takes effect when it shows (applicationIconBadgeNumber).
    private func applyBadge(of alert: Alert) {
        guard let count = alert.badge else { return }
        guard let entry = alert.desktopEntry else {
            logger.debug("A badge needs desktopEntry, the app whose icon carries it; none given.")
            return
        }
        setBadge(entry, count) { _ in }
    }

    /// Stores the app's badge and tells docks (Unity LauncherEntry: count, count-visible);
    /// `then` gets the error when either failed.
    private func setBadge(_ entry: String, _ count: Int, then: @escaping (DBusError?) -> Void) {
        commits.stage({ db in try self.store.setMeta("badge:" + entry, String(count), in: db) }, done: { [unowned self] result in
            if case .failure(let error) = result {
                self.logger.error("Cannot store the badge of \(entry): \(error)")
                return then(DBusError(name: error.errorName, message: "The badge of \(entry) was not set: \(error.clause)"))
            }
            do {
                try self.connection.emit(path: Self.path, interface: Self.launcherEntry, member: self.name("Update"), arguments: [
                    .string("application://\(entry).desktop"),
                    .variantDictionary([("count", .int64(Int64(count))), ("count-visible", .bool(count > 0))]),
                ])
                then(nil)
            } catch {
                self.logger.error("Cannot announce the badge of \(entry): \(error)")
                then(.failed("The badge of \(entry) is stored, but docks could not be told: \(error)"))
            }
        })
    }

    /// The alert of a notification on screen or on its way there, or of one in the store.
    private func alert(for id: String) throws(DBusError) -> Alert? {
        if let alert = presenter.alert(for: id) { return alert }
        return try read { () throws(StoreError) in try store.notification(id: id) }?.alert
    }

    private func schedule(_ alert: Alert, _ fields: ScheduleFields, _ responder: Responder) throws(DBusError) {
        let instant = now()
        let zone = TimeZone.current
        let rule: FireRule
        do { rule = try fields.rule(now: instant, systemZone: zone) } catch { throw .invalidArgs(error.description) }
        var notification = ScheduledNotification(
            id: NotificationID.random(), alert: alert, rule: rule, lateLimit: fields.lateLimit, created: instant,
            nextIndex: 0, nextFire: rule.occurrence(0, systemZone: zone)
        )
        commits.stage({ db in
            while try !self.store.insert(notification, in: db) { notification.id = NotificationID.random() }
        }, done: { [unowned self] result in
            switch result {
            case .success:
                self.logger.debug("Scheduled \(notification.id) for \(notification.nextFire.map { "\($0)" } ?? "never"): \(alert.title)")
                self.scheduler.add(notification)
                responder.reply([.string(notification.id)])
            case .failure(let error):
                responder.fail(DBusError(name: error.errorName, message: "Not scheduled: \(error.clause)"))
            }
        })
    }

    /// Deletes what `select` picks inside one transaction, then answers with `reply`.
    private func cancel(_ responder: Responder, select: @escaping (Store.Transaction) throws -> [String],
                        reply: @escaping ([String]) -> [Value]) {
        var deleted: [String] = []
        var refusal: DBusError?
        commits.stage({ db in
            do { deleted = try select(db) } catch let error as DBusError { refusal = error }
        }, done: { [unowned self] result in
            if let refusal { return responder.fail(refusal) }
            switch result {
            case .success:
                self.scheduler.remove(ids: deleted)
                self.presenter.withdraw(ids: deleted)
                if !deleted.isEmpty { self.logger.info("Cancelled \(deleted.count).") }
                responder.reply(reply(deleted))
            case .failure(let error):
                responder.fail(DBusError(name: error.errorName, message: "Nothing cancelled: \(error.clause)"))
            }
        })
    }

    /// What is scheduled, soonest first, then what is due but waiting for a notification
    /// server (state `pending`), oldest first.
    private func list() throws(DBusError) -> [[(String, Value)]] {
        let zone = TimeZone.current
        let scheduled = try read { () throws(StoreError) in try store.scheduled() }.map { NotificationEncoding.entries($0, zone: zone) }
        // Chime's own notices (a summary of missed ones stands for those listed already)
        // have no id to act on.
        let pending = presenter.waiting.filter { $0.kind != .notice }.map { delivery -> [(String, Value)] in
            [("id", .string(delivery.id)), ("title", .string(delivery.alert.title)), ("body", .string(delivery.alert.body)),
             ("state", .string("pending")), ("userInfo", NotificationEncoding.userInfo(delivery.alert.userInfo))]
        }
        return scheduled + pending
    }

    /// What `chime doctor` shows about the daemon; optional keys are absent, not empty.
    private func status() -> [(String, Value)] {
        let zone = TimeZone.current
        let upcoming = scheduler.upcoming
        var entries: [(String, Value)] = [
            ("version", .string(chimeVersion)),
            ("interface", .string(Self.interfaceName.rawValue)),
            ("pid", .uint32(UInt32(clamping: ProcessInfo.processInfo.processIdentifier))),
            ("store", .string(store.databaseURL.path)),
            ("scheduled", .uint32(UInt32(clamping: upcoming.count))),
            ("pending", .uint32(UInt32(clamping: presenter.waitingCount))),
            ("timeZone", .string(zone.identifier)),
        ]
        if let next = upcoming.next { entries.append(("nextFire", .string(NotificationEncoding.isoText(next, zone: zone)))) }
        if let owner = client.owner {
            entries.append(("notificationServer", .string(owner)))
            // Absent while the server has not answered GetCapabilities.
            if let capabilities = client.capabilities { entries.append(("capabilities", .stringArray(capabilities.sorted()))) }
        }
        entries.append(("localSound", .bool(presenter.sounds?.isAvailable ?? false)))
        if let backup = store.lastBackup { entries.append(("backup", .string(NotificationEncoding.isoText(backup, zone: zone)))) }
        // Shown until the user removes the damaged file it keeps.
        if let recovery = store.recovery, FileManager.default.fileExists(atPath: recovery.keptAs) {
            entries.append(("recovery", .string(recovery.sentence)))
        }
        return entries
    }

    /// Reads the store after committing what is staged, so a read sees every change made
    /// before it (a firing recorded by the timer's handler, say), not only committed ones.
    private func read<T>(_ body: () throws(StoreError) -> T) throws(DBusError) -> T {
        commits.commit()
        do { return try body() } catch { throw .failed("The store could not be read: \(error)") }
    }

    // MARK: - Signals

    /// Runs what a press means: announces it, then opens the app or runs the button's handler.
    private func pressed(_ press: Presenter.Press) {
        let (id, key, alert) = (press.id, press.key, press.alert)
        let label = presenter.expand(alert).allActions.first { $0.key == key }?.label ?? ""
        // A popup kept on screen after Complete (mako, lxqt-notificationd) can still be
        // pressed: its lineage is over, so only opening the app is still meant.
        if key != Action.defaultKey, press.kind != .immediate,
           let completed = (try? read({ () throws(StoreError) in try store.notification(id: id) }))??.completed {
            logger.notice("Ignored '\(key)' on \(id): it was completed at \(completed).")
            record(HistoryEntry(time: now(), id: id, event: .pressed, title: alert.title,
                                detail: "\(label.isEmpty ? key : label): ignored, it was already completed.", action: key))
            return
        }
        logger.info("Action '\(key)' on \(id).")
        emit("ActionInvoked", [.string(id), .string(key), NotificationEncoding.userInfo(alert.userInfo)])
        record(HistoryEntry(time: now(), id: id, event: .pressed, title: alert.title, detail: label, action: key))
        // A click on the notification itself opens its app, as iOS launches the app with
        // the notification in its launch options.
        if key == Action.defaultKey, let entry = alert.desktopEntry {
            launcher.open(desktopEntry: entry, id: id, userInfo: alert.userInfo)
            return
        }
        guard let name = alert.category, let definition = presenter.categories[name]?.actions.first(where: { $0.key == key }) else { return }
        switch definition.handler {
        case .complete:
            complete(id, alert: alert)
        case .snooze(let seconds):
            snooze(id, alert: alert, by: seconds)
        case .command(let argv, let timeout):
            commands.run(argv: argv, timeout: timeout, id: id, action: key,
                         userInfoJSON: CommandRunner.userInfoJSON(alert.userInfo))
        case .announce:
            break
        }
    }

    /// Ends the notification and its whole lineage; then says so on the bus, and the
    /// app's badge goes down by one.
    private func complete(_ id: String, alert: Alert) {
        if alert.badge != nil, let entry = alert.desktopEntry, let count = try? badge(entry), count > 0 {
            setBadge(entry, count - 1) { _ in }
        }
        complete(id, title: alert.title)
    }

    private func complete(_ id: String, title: String) {
        let instant = now()
        var ended: [String] = []
        commits.stage({ db in
            ended = try self.store.complete(id: id, at: instant, in: db)
            let detail = ended.isEmpty ? "Nothing was left to fire." : "No further occurrences of \(ended.joined(separator: ", "))."
            try self.store.record(HistoryEntry(time: instant, id: id, event: .completed, title: title, detail: detail), in: db)
        }, done: { [unowned self] result in
            if case .failure(let error) = result {
                self.logger.error("Cannot complete \(id): \(error)")
                return
            }
            self.scheduler.remove(ids: ended)
            self.logger.info("Completed \(id)\(ended.isEmpty ? "" : "; no further occurrences of \(ended.joined(separator: ", "))").")
            self.emit("Completed", [.string(id)])
        })
    }

    /// Schedules a one-shot copy `seconds` from now; the series itself keeps its times.
    private func snooze(_ id: String, alert: Alert, by seconds: TimeInterval) {
        let instant = now()
        let fireDate = instant.addingTimeInterval(seconds)
        let rule: FireRule
        do { rule = try FireRule(trigger: .absolute(fireDate)) } catch {
            logger.error("Cannot snooze \(id): \(error)")
            return
        }
        var copy = ScheduledNotification(id: NotificationID.random(), alert: alert, rule: rule, lateLimit: nil,
                                         created: instant, nextIndex: 0, nextFire: fireDate)
        commits.stage({ db in
            copy.origin = try self.store.lineageRoot(of: id, in: db)
            while try !self.store.insert(copy, in: db) { copy.id = NotificationID.random() }
            try self.store.record(HistoryEntry(time: instant, id: id, event: .snoozed, title: alert.title,
                                               detail: "Again in \(LateText.describe(seconds)).", copy: copy.id), in: db)
        }, done: { [unowned self] result in
            switch result {
            case .success:
                self.scheduler.add(copy)
                self.logger.info("Snoozed \(id) as \(copy.id) until \(fireDate).")
            case .failure(let error):
                self.logger.error("Cannot snooze \(id): \(error)")
            }
        })
    }

    /// A notification left the screen: the history says how (for those of the schedule;
    /// `chime notify` ones and Chime's own notices stay out of it), and the bus hears it.
    private func closed(_ closing: Presenter.Closing) {
        if closing.kind == .scheduled {
            record(HistoryEntry(time: now(), id: closing.id, event: closing.reason == 1 ? .expired : .closed,
                                title: closing.alert.title, detail: closing.detail))
        }
        emit("Closed", [.string(closing.id), .uint32(closing.reason)])
    }

    /// Writes one history event with the next group commit.
    private func record(_ entry: HistoryEntry) {
        commits.stage({ db in try self.store.record(entry, in: db) }, done: { [unowned self] result in
            if case .failure(let error) = result { self.logger.error("Cannot record \(entry.event) of \(entry.id): \(error)") }
        })
    }

    private func emit(_ member: String, _ arguments: [Value]) {
        do {
            try connection.emit(path: Self.path, interface: Self.interfaceName, member: name(member), arguments: arguments)
        } catch {
            logger.error("Cannot emit \(member): \(error)")
        }
    }
}

/// Chime's own notification ids: short, random, and never reused by a server.
enum NotificationID {
    /// Eight characters of Crockford's base 32 (no i, l, o, u): 40 bits from one draw.
    static func random() -> String {
        let digits = Array("0123456789abcdefghjkmnpqrstvwxyz")
        var generator = SystemRandomNumberGenerator()
        var bits = generator.next()
        var id = ""
        for _ in 0..<8 {
            id.append(digits[Int(bits & 31)])
            bits >>= 5
        }
        return id
    }
}
