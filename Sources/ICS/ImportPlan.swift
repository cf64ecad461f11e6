import CICal
import ChimeAPI
import DBus
import Localization

/// A VEVENT or VTODO read as Chime understands it: what Schedule is asked, one request
/// per alarm (they are scheduled together or not at all).
public struct ImportPlan {
    /// The fields every request shares: title, body, the X-CHIME ones.
    var fields: [(String, Value)] = []
    /// `when` of each request: an instant, a zoned or a floating wall-clock time.
    var whens: [String] = []
    /// Which alarm each of `whens` is (``ChimeCore/CalendarLink/alarm``): the VALARM's UID, or `#` and its place.
    var alarms: [String] = []
    /// How long after each of `whens` the item starts, where that can be told (`leadTime`).
    var leads: [Double?] = []
    /// Whether each of `whens` rings once though the item repeats (a snooze, RFC 9074 7).
    var once: [Bool] = []
    /// The component's UID; empty when it has none.
    public internal(set) var uid = ""
    /// Its RECURRENCE-ID as written: an override of one occurrence of the item; empty for the item.
    public internal(set) var recurrenceID = ""
    /// For an override: the occurrence of the series it replaces, as a `when` text. The
    /// series skips it, and the override fires in its place.
    public internal(set) var replaces: String?
    /// An override that cancels its occurrence: it asks for nothing of its own.
    public internal(set) var cancelled = false
    /// What was left out of a component that is imported (an EMAIL alarm), each the end of a sentence.
    public internal(set) var notes: [String] = []
    var rule: RepeatRule?
    /// A place the item's alarms ring at (RFC 9074 8), asked for as a region.
    struct Region {
        var latitude: Double
        var longitude: Double
        var radius: Double
        var identifier: String
        var onEntry: Bool
        var onExit: Bool
        /// The first place alarm's key (its UID, or `#` and its place).
        var alarm: String
    }

    var region: Region?
    /// X-CHIME-REGION-TRIGGERS-ONCE, for a place's reminder.
    var regionTriggersOnce: Bool?
    /// The occurrences EXDATE leaves out, as `when` texts of the same kind as `whens`.
    public internal(set) var skipped: [String] = []

    /// The title every request shows.
    public var title: String { fields.first { $0.0 == "title" }?.1.stringValue ?? "" }

    /// The Schedule request of each alarm still to come, with its first fire time, or the
    /// reason none is made.
    ///
    /// `firstFire` answers as chimed's NextFireTimestamps does: the first fire time of
    /// `when` with text options and the alarm's `leadTime` (a repeat counts from the item's
    /// start), nil when none is to come, ``ImportRefusal/refused(_:)`` with chimed's
    /// sentence when it cannot read them. Any other error it throws is passed on.
    public func requests(firstFire: (_ when: String, _ options: [(String, String)], _ lead: Double?) throws -> Int64?)
        throws -> [(request: [(String, Value)], next: Int64, alarm: String)] {
        if cancelled { return [] }
        // NextFireTimestamps reads the rule from text options, calendar among them (X-CHIME-CALENDAR).
        var options: [(String, String)] = fields.compactMap { $0.0 == "calendar" ? ($0.0, $0.1.stringValue ?? "") : nil }
        // A rule a unit and a count say is asked for so (it lists as "every 3 days"); any
        // other, and every monthly and yearly one (whose month ends are RFC 5545's, not
        // repeat's), as the RRULE it is, which chimed takes as `chime add --rrule` does, or
        // refuses in a sentence of its own, passed on.
        if let rule {
            if let unit = rule.unit {
                options += [("repeat", unit), ("every", String(rule.every))]
            } else {
                options.append(("rrule", rule.text))
            }
        }
        // Every alarm is read before any is scheduled; one that has passed is over.
        var upcoming: [(when: String, next: Int64, alarm: String, lead: Double?, once: Bool)] = []
        for (index, when) in whens.enumerated() {
            // An alarm at the start has nothing to add: the popup rings when it starts.
            let lead = index < leads.count ? leads[index].flatMap { $0 == 0 ? nil : $0 } : nil
            let once = index < self.once.count && self.once[index]
            let asked = once ? options.filter { $0.0 == "calendar" } : options
            if let next = try firstFire(when, asked, once ? nil : lead) {
                upcoming.append((when, next, index < alarms.count ? alarms[index] : "", lead, once))
            }
        }
        guard !upcoming.isEmpty || region != nil else { throw ImportRefusal.skipped(localized("its time is past")) }
        let scheduling = options.filter { $0.0 != "calendar" }.map { key, text in
            (key, key == "every" ? Value.uint32(UInt32(text) ?? 1) : .string(text))
        }
        var asked = upcoming.map { ([("when", .string($0.when))] + fields + ($0.once ? [] : scheduling)
                                     + ($0.lead.map { [("leadTime", Value.double($0))] } ?? []),
                                    $0.next, $0.alarm) }
        if let region {
            let place: [(String, Value)] = [
                ("latitude", .double(region.latitude)), ("longitude", .double(region.longitude)), ("radius", .double(region.radius)),
                ("identifier", .string(region.identifier)), ("notifyOnEntry", .bool(region.onEntry)), ("notifyOnExit", .bool(region.onExit)),
            ]
            asked.append(([("region", .variantDictionary(place))] + fields
                          + (regionTriggersOnce.map { [("regionTriggersOnce", Value.bool($0))] } ?? []), 0, region.alarm))
        }
        return asked
    }
}

/// An RRULE, and Chime's repeat keys for it when they say the same.
struct RepeatRule {
    /// As the file writes it, for a chimed whose repeat takes RRULE strings; a monthly or
    /// yearly one that says no more than its FREQ and INTERVAL, as those alone.
    var text: String
    /// `repeat` and `every`; nil when no unit and count say the rule.
    var unit: String?
    var every = 1
}

/// Why a component is not imported: `refused` counts as a failure, `skipped` does not.
public enum ImportRefusal: Error {
    /// It cannot be imported: the sentence says why.
    case refused(String)
    /// It has nothing to remind of (cancelled, completed, past): the sentence says why.
    case skipped(String)

    /// The one sentence that names the component (its label) and says why.
    public func sentence(_ label: String) -> String {
        switch self {
        case .skipped(let reason):
            // TRANSLATORS: %1$s names a calendar entry, %2$s says why it is left out.
            return localized("%1$s: skipped: %2$s.", label, reason)
        case .refused(let reason):
            let reason = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            // TRANSLATORS: %1$s names a calendar entry, %2$s says what is wrong with it.
            return localized("%1$s: not imported: %2$s.", label, reason)
        }
    }
}

/// One VEVENT or VTODO of an iCalendar text: how a reader finds it, and what it asks.
public struct ImportComponent {
    /// `VEVENT "Dentist" (UID 42@x, line 12)`.
    public let label: String
    /// Its UID and RECURRENCE-ID, whether or not it can be imported: a calendar read again
    /// keeps what an item it cannot read now made before.
    public let uid: String
    public let recurrenceID: String
    /// What Schedule is asked, or why nothing is.
    public let plan: Result<ImportPlan, ImportRefusal>
}

/// iCalendar text in and out, as chimed's ImportICalendar and ExportICalendar read and
/// write it for any bus caller, chime import and chime export among them.
public enum CalendarText {
    /// The end of the UID a notification of Chime's own is exported with (`ID@chime`):
    /// imported again, it is that notification.
    public static let ownUIDSuffix = "@chime"

    /// Opens libical if it is not open yet; nil once it is, else the sentence that says why not.
    public static func loadFailure() -> String? { ICalendar.loadFailure() }

    /// Why libical found no iCalendar object in `text`, as the end of a sentence: the line
    /// that opens a calendar, or the one that closes it (a file cut short has that one missing).
    public static func whyNotCalendar(_ text: String) -> String {
        let lines = Set(text.split(whereSeparator: \.isNewline).map { String($0.filter { !$0.isWhitespace }).uppercased() })
        if !lines.contains("BEGIN:VCALENDAR") { return "it has no BEGIN:VCALENDAR." }
        if !lines.contains("END:VCALENDAR") { return "it has no END:VCALENDAR, so it may be cut short." }
        return "libical cannot read it."
    }

    /// The VEVENTs and VTODOs of `text`, in its order; nil when it holds no iCalendar object.
    /// Their labels name the `lines` given, when there is one per component (the lines of a
    /// larger file `text` was cut from), else `text`'s own. An all-day item's day starts at
    /// `allDay` (hour and minute; RFC 5545 counts from midnight) for its alarms and its
    /// time. libical must be open (``loadFailure()``).
    public static func components(of text: String, lines given: [Int] = [], allDay: (hour: Int, minute: Int) = (0, 0))
        -> [ImportComponent]? {
        // Through chime import's cut (one part per calendar): a stray END, which libical
        // takes for the calendar's, then loses what follows, a byte-order mark or CR line
        // ends mean here what they mean in a file, and each component keeps its line. A
        // text cut short is libical's to judge, as before: InvalidArgs says what it lacks.
        let cut = CalendarParts(text, limit: .max)
        let throughCut = cut.isCalendar && !cut.isCutShort && !cut.parts.isEmpty
        let read = throughCut ? cut.parts.map(\.text).joined() : text
        let fileLines = given.isEmpty && throughCut ? cut.parts.flatMap(\.lines) : given
        guard let calendar = ICalendar(text: read) else { return nil }
        defer { calendar.free() }
        let components = calendar.reminders
        let lines = fileLines.count == components.count ? fileLines : ICalendar.componentLines(read)
        // Read from the text: libical keeps no VLOCATION (RFC 9074 8).
        let places = ICalendar.placeAlarms(in: read)
        return components.enumerated().map { index, component in
            let label = ICalendar.label(component, line: lines.count == components.count ? lines[index] : nil)
            let recurrence = icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY).map(ICalendar.value) ?? ""
            return ImportComponent(label: label, uid: ICalendar.text(icalcomponent_get_uid(component)) ?? "", recurrenceID: recurrence,
                                   plan: Result { () throws(ImportRefusal) in
                                       try ICalendar.plan(component, allDay: allDay, places: index < places.count ? places[index] : [])
                                   })
        }
    }

    /// A VCALENDAR of the `notifications` (each as `Get` describes it) that iCalendar can
    /// say, and a sentence for each one left out; floating times are read in `systemZone`.
    /// libical must be open (``loadFailure()``).
    public static func export(_ notifications: [[(key: String, value: Value)]], systemZone: String)
        -> (calendar: String, leftOut: [String]) {
        ICalendar.export(notifications.map { entries in
            var fields: [NotificationKey: Value] = [:]
            for (key, value) in entries { if let key = NotificationKey(rawValue: key), fields[key] == nil { fields[key] = value.unwrapped } }
            return fields
        }, systemZone: systemZone)
    }
}
