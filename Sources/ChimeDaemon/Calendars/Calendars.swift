import ChimeAPI
import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Glibc
import Logging
import WebDAV

/// The calendars chimed follows (``CalendarSource``), as `chime calendar` adds, lists and
/// removes them: each read into the schedule and followed live: folders as inotify reports
/// their files changed, CalDAV collections by syncing.
final class Calendars {
    /// What a calendar reads into: the store, the schedule, the loop, the config.
    struct Context {
        var store: Store
        var commits: CommitQueue
        var schedule: Schedule
        var loop: EventLoop
        var settings: Settings
        var logger: Logger
        var now: () -> Date
    }

    private let context: Context
    private(set) var folders: [VdirFolder] = []
    private(set) var collections: [CalDAVCalendar] = []
    /// Where CalDAV passwords come from.
    let passwords: Passwords
    /// libcurl, loaded when a CalDAV calendar first syncs: a chimed without one loads none.
    private var client: HTTPClient?
    /// NetworkManager's word that the network is back, followed while a CalDAV calendar is.
    private var network: NetworkReturn?
    /// A sentence about a calendar the user must act on (a notification tells it).
    var onTrouble: ((String) -> Void)?
    /// Notifications whose popups show what another device has done: they close.
    var onDoneElsewhere: (([String]) -> Void)?
    /// The popups on screen: each notification's id and when it rang.
    var shown: () -> [(id: String, rang: Date)] = { [] }
    /// The names of the calendars the config names (`[Calendar NAME]`), followed while it does.
    private(set) var configured: Set<String> = []
    /// Called after each batch of files a folder reads is merged (the tests await it).
    var onRead: (() -> Void)? {
        didSet {
            for folder in folders { folder.onRead = onRead }
            for collection in collections { collection.onRead = onRead }
        }
    }

    init(_ context: Context, passwords: Passwords) {
        self.context = context
        self.passwords = passwords
    }

    /// The names of every calendar followed.
    var names: [String] { (folders.map(\.calendar.name) + collections.map(\.calendar.name)).sorted() }

    /// The HTTP client the collections share (one connection cache), made on first use.
    func httpClient() -> HTTPClient { http() }

    private func http() -> HTTPClient {
        if let client { return client }
        let made = HTTPClient(loop: context.loop)
        client = made
        return made
    }

    /// Follows the calendars stored and those the config names, once chimed has answered
    /// its first calls.
    func start() {
        do {
            // One added before this (by the call that started chimed) is followed already.
            for calendar in try context.store.calendars() where !names.contains(calendar.name) {
                follow(calendar)
            }
        } catch {
            context.logger.error("The calendars followed cannot be read: \(error).")
        }
        configChanged()
    }

    /// Follows what the config names now (at start and on SIGHUP): a calendar new to it is
    /// read, one moved to another folder is read there, and one no longer named stops being
    /// followed and its reminders go, as `chime calendar remove` does. One whose group has
    /// an error goes on as it was: a half-saved edit costs no reminder.
    func configChanged() {
        let wanted = context.settings.config.calendars, broken = context.settings.config.brokenCalendars
        for name in configured.sorted() where wanted[name] == nil && !broken.contains(name) {
            unfollowConfigured(name)
        }
        for (name, entry) in wanted.sorted(by: { $0.key < $1.key }) {
            if names.contains(name) {
                guard configured.contains(name) else {
                    context.logger.warning("The config's [Calendar \(name)] is not followed: chime calendar add follows a calendar of that name already.")
                    continue
                }
                if folders.first(where: { $0.calendar.name == name })?.calendar.location == Self.resolved(entry.folder) { continue }
                unfollowConfigured(name)
            }
            if let same = folders.first(where: { $0.calendar.location == Self.resolved(entry.folder) }) {
                context.logger.warning("The config's [Calendar \(name)] is not followed: its folder is followed already, as \(same.calendar.name).")
                continue
            }
            configured.insert(name)
            follow(CalendarSource(name: name, kind: .vdir, location: Self.resolved(entry.folder), added: context.now()))
            context.logger.info("Following calendar \(name) of the config: \(entry.folder).")
        }
    }

    /// Stops following the config's calendar `name` and cancels what its files made.
    private func unfollowConfigured(_ name: String) {
        guard names.contains(name) else { return }
        do {
            try unfollow(name, detail: "Its calendar \(name) left the config.") { [logger = context.logger] result in
                if case .failure(let error) = result { logger.error("Cannot cancel the reminders of calendar \(name): \(error)") }
            }
            configured.remove(name)
        } catch {
            context.logger.error("Cannot cancel the reminders of calendar \(name): \(error.message)")
        }
        context.logger.info("No longer following calendar \(name): the config no longer names it.")
    }

    /// Stops following calendar `name` and cancels what its items made, with `also` in the
    /// same transaction; `done` hears the ids cancelled. The calendar, returned, is followed
    /// again by ``follow(_:)`` should the cancel fail.
    @discardableResult
    private func unfollow(_ name: String, detail: String, also: ((Store.Transaction) throws -> Void)? = nil,
                          done: @escaping (Result<[String], StoreError>) -> Void) throws(DBusError) -> CalendarSource? {
        let calendar: CalendarSource
        if let index = folders.firstIndex(where: { $0.calendar.name == name }) {
            calendar = folders[index].calendar
            let ids = try madeIDs(of: calendar)
            folders.remove(at: index).stop()
            context.schedule.cancel(ids: ids, at: context.now(), detail: detail, also: also, done: done)
        } else if let index = collections.firstIndex(where: { $0.calendar.name == name }) {
            calendar = collections[index].calendar
            let ids = try madeIDs(of: calendar)
            collections.remove(at: index).stop()
            context.schedule.cancel(ids: ids, at: context.now(), detail: detail, also: also, done: done)
        } else {
            return nil
        }
        return calendar
    }

    /// The notifications the items of `calendar` made, scheduled or done.
    private func madeIDs(of calendar: CalendarSource) throws(DBusError) -> [String] {
        try context.commits.read { () throws(StoreError) in try context.store.linkedIDs(inFolder: calendar.location) }
            .values.flatMap { $0 }
    }

    /// `path` with its links resolved, as a folder is stored; as it is while it does not exist.
    static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path }
        defer { free(real) }
        return String(cString: real)
    }

    private func follow(_ calendar: CalendarSource) {
        switch calendar.kind {
        case .vdir:
            let folder = VdirFolder(calendar, parts: context)
            folder.onRead = onRead
            folders.append(folder)
            folder.start()
        case .caldav:
            let collection = CalDAVCalendar(calendar, parts: context, http: { [unowned self] in self.http() }, passwords: passwords)
            collection.onRead = onRead
            collection.onTrouble = { [unowned self] sentence in self.onTrouble?(sentence) }
            collection.onDoneElsewhere = { [unowned self] ids in self.onDoneElsewhere?(ids) }
            collection.shown = { [unowned self] in self.shown() }
            collections.append(collection)
            collection.start()
            if network == nil {
                let network = NetworkReturn(loop: context.loop, logger: context.logger)
                network.onBack = { [unowned self] in
                    for collection in self.collections where collection.isOffline { collection.sync() }
                }
                self.network = network
                network.start()
            }
        }
    }

    /// Follows the vdir folder at `location` under `name` (empty: the folder's own name);
    /// `done` hears the calendar once stored. InvalidArgs names what is wrong.
    func add(location: String, name: String, done: @escaping (Result<VdirFolder, DBusError>) -> Void) throws(DBusError) {
        let path = try Self.folder(location)
        let name = name.isEmpty ? String(path.split(separator: "/").last ?? "calendar") : name
        try Self.check(name: name)
        if let same = folders.first(where: { $0.calendar.location == path }) {
            throw .invalidArgs("location: '\(path)' is followed already, as \(same.calendar.name).")
        }
        if names.contains(name) {
            throw .invalidArgs("name: '\(name)' is the name of a calendar followed already; give this one another.")
        }
        guard names.count < Limits.calendars else {
            throw .invalidArgs("location: chimed follows at most \(Limits.calendars) calendars; remove one first.")
        }
        let calendar = CalendarSource(name: name, kind: .vdir, location: path, added: context.now())
        var added = false
        context.commits.stage({ [store = context.store] db in added = try store.addCalendar(calendar, in: db) }) { [unowned self] result in
            switch result {
            case .success where added:
                self.follow(calendar)
                self.context.logger.info("Following calendar \(name): \(path).")
                done(.success(self.folders[self.folders.count - 1]))
            case .success:
                done(.failure(.invalidArgs("name: a calendar named \(name) or at \(path) is followed already.")))
            case .failure(let error):
                done(.failure(.refused("Not added", error)))
            }
        }
    }

    /// Follows the CalDAV collection at `url` under `name` (empty: the collection's last
    /// path segment) with `settings`; `password`, when given, is stored in the Secret Service
    /// first (never in chimed's store). `done` hears the calendar once stored; its first sync
    /// is then under way. InvalidArgs names what is wrong.
    func add(collection url: String, name: String, settings: CalDAVSettings, password: String?,
             done: @escaping (Result<CalDAVCalendar, DBusError>) -> Void) throws(DBusError) {
        let location = try Self.collectionURL(url)
        let name = name.isEmpty ? (DAVURL.lastSegment(of: location) ?? "calendar") : name
        try Self.check(name: name)
        if let same = collections.first(where: { DAVURL.collectionKey($0.calendar.location) == DAVURL.collectionKey(location) }) {
            throw .invalidArgs("location: '\(location)' is followed already, as \(same.calendar.name).")
        }
        if names.contains(name) {
            throw .invalidArgs("name: '\(name)' is the name of a calendar followed already; give this one another.")
        }
        guard names.count < Limits.calendars else {
            throw .invalidArgs("location: chimed follows at most \(Limits.calendars) calendars; remove one first.")
        }
        guard !settings.user.isEmpty else { throw .invalidArgs("user: a CalDAV calendar needs the user it is read as.") }
        if let ca = settings.ca, access(ca, R_OK) != 0 {
            throw .invalidArgs("ca: '\(ca)' cannot be read: \(String(cString: strerror(errno))).")
        }
        let calendar = CalendarSource(name: name, kind: .caldav, location: location, added: context.now(), caldav: settings)
        let stored = { [unowned self] in
            var added = false
            self.context.commits.stage({ [store = self.context.store] db in added = try store.addCalendar(calendar, in: db) }) { [unowned self] result in
                switch result {
                case .success where added:
                    self.follow(calendar)
                    self.context.logger.info("Following calendar \(name): \(location) as \(settings.user).")
                    done(.success(self.collections[self.collections.count - 1]))
                case .success:
                    done(.failure(.invalidArgs("name: a calendar named \(name) or at \(location) is followed already.")))
                case .failure(let error):
                    done(.failure(.refused("Not added", error)))
                }
            }
        }
        guard let password, settings.passwordCommand == nil else { return stored() }
        passwords.store(url: Self.origin(location), user: settings.user, password: password) { result in
            switch result {
            case .success: stored()
            case .failure(let failure): done(.failure(DBusError(name: ChimeError.failed, message: failure.description)))
            }
        }
    }

    /// Stores a new password for CalDAV calendar `name`'s user and syncs it; `done` hears the sync.
    func setPassword(_ password: String, for name: String, done: @escaping (Result<CalDAVCalendar.Report, DBusError>) -> Void) throws(DBusError) {
        guard let collection = collections.first(where: { $0.calendar.name == name }), let settings = collection.calendar.caldav else {
            throw DBusError(name: ChimeError.notFound, message: "No CalDAV calendar is named '\(name)'.")
        }
        guard settings.passwordCommand == nil else {
            throw DBusError(name: ChimeError.failed, message: "Calendar '\(name)' takes its password from its command (\(settings.passwordCommand ?? "")); change what that prints.")
        }
        passwords.store(url: Self.origin(collection.calendar.location), user: settings.user, password: password) { [unowned self] result in
            switch result {
            case .success:
                for other in self.collections where other.calendar.caldav?.user == settings.user
                    && DAVURL.sameOrigin(other.calendar.location, collection.calendar.location) {
                    other.forgetPassword()
                    if other !== collection { other.sync() }
                }
                collection.sync { done(.success($0)) }
            case .failure(let failure):
                done(.failure(DBusError(name: ChimeError.failed, message: failure.description)))
            }
        }
    }

    /// Syncs calendar `name` now (every CalDAV calendar when empty); `done` hears each one's report.
    func sync(name: String, done: @escaping (Result<[(String, CalDAVCalendar.Report)], DBusError>) -> Void) throws(DBusError) {
        let chosen = name.isEmpty ? collections : collections.filter { $0.calendar.name == name }
        guard !chosen.isEmpty else {
            if folders.contains(where: { $0.calendar.name == name }) {
                throw DBusError(name: ChimeError.failed, message: "Calendar '\(name)' is a folder, read as its files change; only CalDAV calendars sync.")
            }
            throw DBusError(name: ChimeError.notFound, message: name.isEmpty ? "No CalDAV calendar is followed." : "No calendar is named '\(name)'.")
        }
        var reports: [(String, CalDAVCalendar.Report)] = []
        for collection in chosen {
            collection.sync { report in
                reports.append((collection.calendar.name, report))
                if reports.count == chosen.count { done(.success(reports.sorted { $0.0 < $1.0 })) }
            }
        }
    }

    /// A collection's URL, without its last slash: https, or http to this machine only
    /// (a password over plain http to another would be readable on the way).
    static func collectionURL(_ url: String) throws(DBusError) -> String {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), DAVURL.path(of: url) != nil else {
            throw .invalidArgs("location: '\(url)' is neither a folder (an absolute path) nor an https:// address.")
        }
        if lower.hasPrefix("http://"), !DAVURL.isLoopback(url) {
            throw .invalidArgs("location: '\(url)' is plain http, which would send the password unencrypted; use https://.")
        }
        var location = url
        while location.hasSuffix("/") { location.removeLast() }
        return location
    }

    /// `https://host:port` of `url`: the account a password is stored for.
    static func origin(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return String(url[..<scheme.upperBound]) + String(rest.prefix { $0 != "/" })
    }

    /// Stops following calendar `name` and cancels the reminders its items made; `done`
    /// hears how many. NotFound when no calendar has that name.
    func remove(name: String, done: @escaping (Result<Int, DBusError>) -> Void) throws(DBusError) {
        if configured.contains(name) {
            let line = context.settings.config.calendars[name]?.line.map { ", line \($0)" } ?? ""
            throw DBusError(name: ChimeError.failed, message: "Calendar '\(name)' is named in the config file (\(context.settings.config.path)\(line)): "
                + "remove its [Calendar \(name)] group there, then reload chimed (systemctl --user reload chimed.service).")
        }
        guard names.contains(name) else {
            throw DBusError(name: ChimeError.notFound, message: "No calendar is named '\(name)'"
                + (names.isEmpty ? "; none is followed." : "; those followed are \(names.joined(separator: ", "))."))
        }
        let store = context.store
        var removed: CalendarSource?
        removed = try unfollow(name, detail: "Its calendar \(name) was removed.", also: { db in
            _ = try store.removeCalendar(named: name, in: db)
        }) { [unowned self] result in
            switch result {
            case .success(let ids):
                self.context.logger.info("No longer following calendar \(name); \(ids.count) reminders removed.")
                if let account = removed?.caldav, account.passwordCommand == nil, let location = removed?.location,
                   !self.collections.contains(where: { $0.calendar.caldav?.user == account.user && DAVURL.sameOrigin($0.calendar.location, location) }) {
                    self.passwords.delete(url: Self.origin(location), user: account.user) { [logger = self.context.logger] result in
                        if case .failure(let failure) = result { logger.warning("The password of calendar \(name) stays in the keyring: \(failure)") }
                    }
                }
                done(.success(ids.count))
            case .failure(let error):
                // Still stored: followed again, as it was.
                if let removed { self.follow(removed) }
                done(.failure(.refused("Not removed", error)))
            }
        }
    }

    /// How many reminders each calendar's files made that are still to fire, by name.
    func reminderCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for calendar in folders.map(\.calendar) + collections.map(\.calendar) {
            counts[calendar.name] = ((try? madeIDs(of: calendar)) ?? []).filter(context.schedule.isScheduled).count
        }
        return counts
    }

    // MARK: - Writing back

    /// What a press on a notification made from a calendar item writes into the item.
    enum Press {
        /// Complete: a task completed; an event's alarm acknowledged.
        case complete
        /// Complete on one occurrence of a repeating item, starting at that wall-clock
        /// time on the item's clock: a task's occurrence completed; an event's alarm acknowledged.
        case completeOccurrence(LocalDateTime)
        /// The popup dismissed: the alarm acknowledged.
        case acknowledge
        /// Remind later: the alarm acknowledged, a snooze alarm `snoozeUID` at `until`
        /// (for a repeating item, of the occurrence starting at `occurrence`).
        case snooze(until: Date, snoozeUID: String, occurrence: Date?)
    }

    /// Whether a followed folder holds the file `link` came from.
    func follows(_ link: CalendarLink) -> Bool {
        folders.contains { $0.calendar.file(ofSource: link.source) != nil }
            || collections.contains { $0.calendar.file(ofSource: link.source) != nil }
    }

    /// Writes `press` into the file `link` came from, when a followed folder holds it; the
    /// alarm's key after the write (a snoozed alarm gets a UID when it had none), nil when
    /// nothing was written. A file that cannot be written is named in chime calendar list;
    /// what was pressed stays in chimed's store all the same.
    @discardableResult
    func write(_ press: Press, for link: CalendarLink, at instant: Date) -> String? {
        if let collection = collections.first(where: { $0.calendar.file(ofSource: link.source) != nil }) {
            return collection.write(press, for: link, at: instant)
        }
        guard let folder = folders.first(where: { $0.calendar.file(ofSource: link.source) != nil }),
              let name = folder.calendar.file(ofSource: link.source) else { return nil }
        var alarm = link.alarm
        do throws(VdirFolder.WriteFailure) {
            try folder.patch(file: name) { patch throws(CalendarPatch.Failure) in
                switch press {
                case .complete:
                    try patch.complete(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, at: instant)
                case .completeOccurrence(let occurrence):
                    if try !patch.completeOccurrence(uid: link.uid, occurrence: occurrence, alarm: link.alarm, at: instant) {
                        try patch.acknowledge(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, at: instant)
                    }
                case .acknowledge:
                    try patch.acknowledge(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, at: instant)
                case .snooze(let until, let snoozeUID, let occurrence):
                    alarm = try patch.snooze(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, occurrence: occurrence,
                                             until: until, snoozeUID: snoozeUID, at: instant)
                }
            }
            context.logger.info("Calendar \(folder.calendar.name): wrote \(press.name) of \(link.uid) into \(name).")
            return alarm
        } catch {
            folder.noteUnwritten(name, error)
            context.logger.warning("Calendar \(folder.calendar.name): \(name): \(press.name) not written: \(error).")
            return nil
        }
    }

    // MARK: - Checks

    /// The folder `location` names, absolute and with its links resolved.
    static func folder(_ location: String) throws(DBusError) -> String {
        guard location.hasPrefix("/") else {
            throw .invalidArgs("location: '\(location)' is not an absolute path; give the folder as /home/…/calendars/NAME.")
        }
        guard let real = realpath(location, nil) else {
            throw .invalidArgs("location: '\(location)' \(errno == ENOENT ? "does not exist" : "cannot be read: \(String(cString: strerror(errno)))").")
        }
        let path = String(cString: real)
        free(real)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw .invalidArgs("location: '\(location)' is not a folder; a vdir calendar is a folder of .ics files.")
        }
        guard access(path, R_OK | X_OK) == 0 else {
            throw .invalidArgs("location: '\(location)' cannot be read: \(String(cString: strerror(errno))).")
        }
        // vdirsyncer and khal keep one folder per calendar under a common one: the user
        // means one of those, or each of them.
        let (items, calendars) = contents(path)
        if items == 0, !calendars.isEmpty {
            let shown = calendars.prefix(3).map { path + "/" + $0 }.joined(separator: ", ")
            throw .invalidArgs("location: '\(location)' holds calendar folders, not items; add each of them: \(shown)"
                + (calendars.count > 3 ? " and \(calendars.count - 3) more." : "."))
        }
        return path
    }

    /// How many items a folder holds, and which of its folders hold items.
    private static func contents(_ path: String) -> (items: Int, calendars: [String]) {
        var items = 0
        var calendars: [String] = []
        eachEntry(of: path) { name, isFolder in
            if VdirFolder.isItemName(name) {
                items += 1
            } else if isFolder, !name.hasPrefix(".") {
                var held = 0
                eachEntry(of: path + "/" + name) { inner, _ in if VdirFolder.isItemName(inner) { held += 1 } }
                if held > 0 { calendars.append(name) }
            }
        }
        return (items, calendars.sorted())
    }

    /// Calls `body` with each name in folder `path`, and whether it is a folder.
    static func eachEntry(of path: String, _ body: (String, Bool) -> Void) {
        guard let folder = opendir(path) else { return }
        defer { closedir(folder) }
        while let entry = readdir(folder) {
            let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            body(name, entry.pointee.d_type == UInt8(DT_DIR))
        }
    }

    private static func check(name: String) throws(DBusError) {
        guard !name.isEmpty, name.count <= 64, !name.contains("/"), !name.hasPrefix("-"),
              name.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControl }) else {
            throw .invalidArgs("name: '\(name)' is not a calendar name; use up to 64 characters without / or control characters, not starting with -.")
        }
    }
}

private extension Unicode.GeneralCategory {
    var isControl: Bool { self == .control || self == .format || self == .lineSeparator || self == .paragraphSeparator }
}

extension Calendars.Press {
    /// For the log.
    var name: String {
        switch self {
        case .complete, .completeOccurrence: "Complete"
        case .acknowledge: "the acknowledgement"
        case .snooze: "the snooze"
        }
    }
}
