import FoundationEssentials

/// A notification as a row of the `notification` table and back.
extension Store {
    /// The notification a row holds; throws when the row is incomplete or from a newer version.
    func decode(_ row: Row) throws -> ScheduledNotification {
        let placeData: Data? = try row["place"]
        let trigger = try TriggerColumns(kind: row["triggerKind"], instant: row["triggerInstant"], local: row["triggerLocal"],
                                         zone: row["triggerZone"], place: placeData.map { try decoder.decode(Place.self, from: $0) })
            .trigger
        let unit: String? = try row["repeatUnit"]
        let rrule: String? = try row["rrule"]
        // A backup from before v12 (read as it is, in a recovery) has neither column: its
        // rows are as every row before v12, which took a month's last day and had no lead.
        let monthEnds: String? = row.has("monthEnds") ? try row["monthEnds"] : nil
        let lead: Int? = row.has("lead") ? try row["lead"] : nil
        let recurrence = try unit.map { text throws -> Recurrence in
            var recurrence: Recurrence
            // Rows from before v6 have no rrule: their unit and count are the whole rule.
            if let rrule {
                recurrence = try Recurrence.parse(rrule: rrule).0
            } else {
                guard let unit = RepeatUnit(rawValue: text) else { throw StoreError.failed("Unknown repeat unit '\(text)' in the store.") }
                recurrence = try Recurrence(unit: unit, count: row["repeatCount"] ?? 1)
            }
            guard let skip = monthEnds.map(MonthEndSkip.init(rawValue:)) ?? .backward else {
                throw StoreError.failed("Unknown month end '\(monthEnds ?? "")' in the store.")
            }
            recurrence.skip = skip
            return recurrence
        }
        var rule = try FireRule(trigger: trigger, recurrence: recurrence, calendar: FireRule.storedCalendar(row["calendar"]))
            .leading(by: lead ?? 0)
        rule.skipped = Self.skipped(try row["skipped"])
        let alertData: Data = try row["alert"]
        var notification = try ScheduledNotification(
            id: row["id"], alert: try decoder.decode(Alert.self, from: alertData), rule: rule, lateLimit: row["lateLimit"],
            created: Date(timeIntervalSince1970: row["created"]), nextIndex: row["nextIndex"],
            nextFire: (row["nextFire"] as Double?).map { Date(timeIntervalSince1970: $0) }
        )
        notification.lastFired = (try row["lastFired"] as Double?).map { Date(timeIntervalSince1970: $0) }
        notification.origin = try row["origin"]
        notification.completed = (try row["completed"] as Double?).map { Date(timeIntervalSince1970: $0) }
        notification.fireCount = try row["fireCount"]
        notification.state = ScheduledNotification.State(rawValue: try row["state"]) ?? .done
        notification.presence = (try row["placePresence"] as String?).flatMap(Presence.init(rawValue:))
        // A backup from before v11 (read as it is, in a recovery) has no link columns.
        if row.has("linkUID"), let uid: String = try row["linkUID"] {
            notification.link = CalendarLink(uid: uid, recurrence: try row["linkRecurrence"] ?? "", alarm: try row["linkAlarm"] ?? "",
                                             source: try row["linkSource"] ?? "")
        }
        return notification
    }
}

extension Store {
    /// The skipped column: wall-clock times (2026-12-24T09:00:00), comma-separated; nil when none is skipped.
    static func skippedText(_ skipped: Set<LocalDateTime>) -> String? {
        skipped.isEmpty ? nil : skipped.sorted().map(\.description).joined(separator: ",")
    }

    static func skipped(_ text: String?) -> Set<LocalDateTime> {
        Set((text ?? "").split(separator: ",").compactMap { LocalDateTime(iso: String($0)) })
    }
}

/// JSON columns (an alert, a place) as the encoders read and write them.
extension Data: SQLiteConvertible {
    var sqliteValue: SQLiteValue { .blob(Array(self)) }
    init?(sqliteValue: SQLiteValue) {
        guard let bytes = [UInt8](sqliteValue: sqliteValue) else { return nil }
        self.init(bytes)
    }
}

/// A trigger spread over the table's columns, so due times stay queryable.
struct TriggerColumns {
    var kind: String
    var instant: Double?
    var local: String?
    var zone: String?
    /// A place trigger's definition; the columns above stay empty for it.
    var place: Place?

    init(_ trigger: Trigger) {
        switch trigger {
        case .absolute(let date): self.init(kind: "absolute", instant: date.timeIntervalSince1970)
        case .floating(let local): self.init(kind: "floating", local: local.description)
        case .zoned(let local, let zone): self.init(kind: "zoned", local: local.description, zone: zone)
        case .place(let place): self.init(kind: "place", place: place)
        }
    }

    init(kind: String, instant: Double? = nil, local: String? = nil, zone: String? = nil, place: Place? = nil) {
        self.kind = kind
        self.instant = instant
        self.local = local
        self.zone = zone
        self.place = place
    }

    var trigger: Trigger {
        get throws {
            switch kind {
            case "absolute":
                if let instant { return .absolute(Date(timeIntervalSince1970: instant)) }
            case "floating":
                if let local, let dateTime = LocalDateTime(iso: local) { return .floating(dateTime) }
            case "zoned":
                if let local, let dateTime = LocalDateTime(iso: local), let zone { return .zoned(dateTime, zone: zone) }
            case "place":
                if let place { return .place(place) }
            default:
                break
            }
            throw StoreError.failed("A stored trigger of kind '\(kind)' is incomplete.")
        }
    }
}
