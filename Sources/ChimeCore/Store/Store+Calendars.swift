import FoundationEssentials

/// A calendar chimed follows: a folder in the vdir format (one `.ics` file per item, as
/// vdirsyncer, khal and todoman keep them), or a CalDAV collection (RFC 4791).
public struct CalendarSource: Hashable, Sendable {
    /// How it is read.
    public enum Kind: String, Sendable {
        /// A vdir folder, watched with inotify.
        case vdir
        /// A CalDAV collection, synced.
        case caldav
    }

    /// The name the user knows it by (`chime calendar remove NAME`).
    public var name: String
    public var kind: Kind
    /// The folder's absolute path; a collection's URL, without its last slash.
    public var location: String
    public var added: Date
    /// How a CalDAV collection is reached; nil for a folder.
    public var caldav: CalDAVSettings?

    public init(name: String, kind: Kind, location: String, added: Date, caldav: CalDAVSettings? = nil) {
        (self.name, self.kind, self.location, self.added, self.caldav) = (name, kind, location, added, caldav)
    }

    /// What a file of the folder is as a link's source (``CalendarLink/source``): its path;
    /// for a collection, the item's URL.
    public func source(ofFile name: String) -> String { location + "/" + name }

    /// The file of the folder a link's source names, nil when it is not one of the folder's.
    public func file(ofSource source: String) -> String? {
        guard source.hasPrefix(location + "/") else { return nil }
        let name = source.dropFirst(location.count + 1)
        return name.isEmpty || name.contains("/") ? nil : String(name)
    }
}

/// The calendars chimed follows, and what their files made.
extension Store {
    /// Every calendar followed, by name.
    public func calendars() throws(StoreError) -> [CalendarSource] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT calendar.*, caldav.user, caldav.passwordCommand, caldav.ca, caldav.shareDismissals, caldav.interval "
                             + "FROM calendar LEFT JOIN caldav USING (name) ORDER BY name").compactMap { row in
                guard let kind = CalendarSource.Kind(rawValue: try row["kind"] ?? "") else { return nil }
                var calendar = CalendarSource(name: try row["name"] ?? "", kind: kind, location: try row["location"] ?? "",
                                              added: Date(timeIntervalSince1970: try row["added"] ?? 0))
                if kind == .caldav, let user: String = try row["user"] {
                    calendar.caldav = CalDAVSettings(user: user, passwordCommand: try row["passwordCommand"], ca: try row["ca"],
                                                     shareDismissals: (try row["shareDismissals"] ?? 1) != 0,
                                                     interval: try row["interval"] ?? CalDAVSettings.defaultInterval)
                }
                return calendar
            }
        }
    }

    /// Follows `calendar`; false when its name or its location is followed already.
    public func addCalendar(_ calendar: CalendarSource, in transaction: Transaction) throws -> Bool {
        try transaction.db.cachedStatement(sql: "INSERT OR IGNORE INTO calendar (name, kind, location, added) VALUES (?, ?, ?, ?)")
            .execute(arguments: [calendar.name, calendar.kind.rawValue, calendar.location, calendar.added.timeIntervalSince1970])
        guard transaction.db.changesCount > 0 else { return false }
        if let settings = calendar.caldav {
            try transaction.db.cachedStatement(sql: "INSERT OR REPLACE INTO caldav (name, user, passwordCommand, ca, shareDismissals, interval) VALUES (?, ?, ?, ?, ?, ?)")
                .execute(arguments: [calendar.name, settings.user, settings.passwordCommand, settings.ca, settings.shareDismissals ? 1 : 0, settings.interval])
        }
        return true
    }

    /// Stops following the calendar `name`, with what its sync kept and the presses it had
    /// still to send; false when none has that name.
    public func removeCalendar(named name: String, in transaction: Transaction) throws -> Bool {
        try transaction.db.cachedStatement(sql: "DELETE FROM calendar WHERE name = ?").execute(arguments: [name])
        let removed = transaction.db.changesCount > 0
        for table in ["caldav", "caldav_item", "caldav_write"] {
            try transaction.db.execute(sql: "DELETE FROM \(table) WHERE \(table == "caldav" ? "name" : "calendar") = ?", arguments: [name])
        }
        return removed
    }

    /// The notifications, scheduled or done, made from the files `sources` names.
    public func linked(sources: Set<String>) throws(StoreError) -> [ScheduledNotification] {
        try read { db in
            let select = try db.cachedStatement(sql: "SELECT * FROM notification WHERE linkSource = ?")
            return try sources.sorted().flatMap { source in try Row.fetchAll(select, arguments: [source]).map(decode) }
        }
    }

    /// The ids of the notifications made from the files in folder `location`, scheduled or
    /// done, by file.
    public func linkedIDs(inFolder location: String) throws(StoreError) -> [String: [String]] {
        try read { db in
            // A range of the index rather than LIKE, whose wildcards a folder's name may hold.
            let rows = try Row.fetchAll(db, sql: "SELECT id, linkSource FROM notification WHERE linkSource > ? AND linkSource < ?",
                                        arguments: [location + "/", location + "0"])
            var found: [String: [String]] = [:]
            for row in rows {
                guard let id: String = try row["id"], let source: String = try row["linkSource"] else { continue }
                found[source, default: []].append(id)
            }
            return found
        }
    }

    /// Names another alarm of the same item for notification `id`: the alarm got a UID
    /// when it was snoozed (RFC 9074 7), and is read by it from then on.
    public func relink(id: String, alarm: String, in transaction: Transaction) throws {
        try transaction.db.cachedStatement(sql: "UPDATE notification SET linkAlarm = ? WHERE id = ? AND linkUID IS NOT NULL")
            .execute(arguments: [alarm, id])
    }

    /// The snoozed copies of `root` still to fire.
    public func scheduledCopies(of root: String) throws(StoreError) -> [String] {
        try read { db in
            try String.fetchAll(db, sql: "SELECT id FROM notification WHERE origin = ? AND state = 'scheduled'", arguments: [root])
        }
    }
}
