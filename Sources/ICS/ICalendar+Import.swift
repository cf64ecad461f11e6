import CICal
import ChimeAPI
import DBus
import Localization

extension ICalendar {
    /// How a user finds the component in the file: `VEVENT "Dentist" (UID 42@x, line 12)`.
    static func label(_ component: OpaquePointer, line: Int?) -> String {
        let kind = icalcomponent_isa(component) == ICAL_VTODO_COMPONENT ? "VTODO" : "VEVENT"
        var details: [String] = []
        if let uid = text(icalcomponent_get_uid(component)), !uid.isEmpty { details.append("UID " + uid) }
        if let line { details.append(localized("line %1$s", line)) }
        let summary = text(icalcomponent_get_summary(component)).map { " \"\($0)\"" } ?? ""
        return kind + summary + (details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")")
    }

    /// The line of each `BEGIN:VEVENT` and `BEGIN:VTODO` of `text`, in order: libical keeps none.
    static func componentLines(_ text: String) -> [Int] {
        var lines: [Int] = []
        // By bytes: a String's "\r\n", the line end RFC 5545 prescribes, is one Character,
        // which "\n" does not match.
        for (index, bytes) in text.utf8.split(separator: 10, omittingEmptySubsequences: false).enumerated() {
            let line = Substring(bytes)
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line
            if trimmed.uppercased() == "BEGIN:VEVENT" || trimmed.uppercased() == "BEGIN:VTODO" { lines.append(index + 1) }
        }
        return lines
    }

    /// What `component` asks Chime to schedule.
    static func plan(_ component: OpaquePointer, allDay: (hour: Int, minute: Int) = (0, 0), places: [PlaceAlarm] = [])
        throws(ImportRefusal) -> ImportPlan {
        let startOfDay = { (time: icaltimetype) in Self.startOfDay(time, at: allDay) }
        // Google Calendar writes empty DESCRIPTION and LOCATION lines, which libical drops with
        // an error but which lose nothing; and what libical cannot read of a property Chime
        // does not read (RFC 9253's LINK, a RELATED-TO by UID, a bad GEO) loses nothing either.
        if let error = parseErrors(in: component).first(where: { !$0.hasPrefix("No value for") && costsSomething($0) }) {
            throw .refused(localized("libical could not read it: %1$s", error))
        }
        // A VEVENT whose END is missing holds the ones after it, and libical reads those as
        // its children, which no one imports: said, rather than lost without a word.
        for (name, kind) in [("VEVENT", ICAL_VEVENT_COMPONENT), ("VTODO", ICAL_VTODO_COMPONENT)] where !children(of: component, kind).isEmpty {
            throw .refused(localized("it holds a %1$s of its own: its END is missing", name))
        }
        var plan = ImportPlan()
        plan.uid = text(icalcomponent_get_uid(component)) ?? ""
        // RFC 5545 3.8.4.4: an override of one occurrence of a series (its own time, text
        // and alarms), which that occurrence of the series gives way to.
        if let recurrence = icalcomponent_get_first_property(component, ICAL_RECURRENCEID_PROPERTY) {
            plan.recurrenceID = value(recurrence)
            let replaced = icalproperty_get_recurrenceid(recurrence)
            plan.replaces = try whenText(startOfDay(replaced), zone: replaced.is_date != 0 ? "" : try zoneName(recurrence, replaced))
        }
        let status = icalcomponent_get_status(component)
        if status == ICAL_STATUS_CANCELLED || status == ICAL_STATUS_COMPLETED {
            // A cancelled occurrence is one the series no longer has: nothing of its own fires.
            if plan.replaces != nil {
                plan.cancelled = true
                return plan
            }
            throw .skipped(localized("it is cancelled or completed"))
        }
        let isTask = icalcomponent_isa(component) == ICAL_VTODO_COMPONENT
        // A task is due at DUE; one with only a start (tasks.org writes DTSTART alone) at DTSTART.
        let due = isTask ? icalcomponent_get_first_property(component, ICAL_DUE_PROPERTY) : nil
        // RFC 9074 8: alarms that ring on arriving at or leaving a place, which need no time.
        let regions = places.filter(\.isRegion)
        let placeAlarm = { (index: Int) in places.first { $0.position == index + 1 && !$0.proximity.isEmpty } }
        guard let anchor = due ?? icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY) else {
            guard !regions.isEmpty else {
                throw .refused(isTask ? localized("it has no DUE or DTSTART, so no time to remind at") : localized("it has no DTSTART"))
            }
            plan.region = region(regions)
            return try described(component, plan)
        }
        // The component's getters, not the property's: they find the VTIMEZONE a TZID names
        // in the calendar (time.zone), which an Outlook zone name is read through.
        let start = startOfDay(due != nil ? icalcomponent_get_due(component) : icalcomponent_get_dtstart(component))
        let end = isTask ? start : startOfDay(icalcomponent_get_dtend(component))
        // libical's arithmetic carries a month 13 or a 31 April into the next month: an alarm
        // counted from one would ring on a date the file never said. (Without alarms the
        // date reaches chimed as written, and chimed refuses it.)
        let hasAlarms = !children(of: component, ICAL_VALARM_COMPONENT).isEmpty
        for (name, time) in [(due != nil ? "DUE" : "DTSTART", start), ("DTEND", end)] where hasAlarms {
            if let problem = impossibility(time) {
                throw .refused(localized("%1$s %2$s is not a date: %3$s", name, localText(time), problem))
            }
        }
        let zone = try zoneName(anchor, start)
        // RFC 5545 3.8.6.3: a trigger counts from DTSTART (RELATED=START) or from a task's DUE
        // (RELATED=END); a task without DTSTART counts from its DUE either way, as clients mean it.
        let taskStart = isTask && due != nil ? icalcomponent_get_first_property(component, ICAL_DTSTART_PROPERTY) : nil
        let alarmStart = taskStart == nil ? start : startOfDay(icalcomponent_get_dtstart(component))
        var alarmStartZone = zone
        if let taskStart { alarmStartZone = try zoneName(taskStart, alarmStart) }
        let repeats = icalcomponent_get_first_property(component, ICAL_RRULE_PROPERTY) != nil
        let alarms = children(of: component, ICAL_VALARM_COMPONENT)
        // Each alarm (and each RDATE's) is a reminder: one item of a synced calendar must not
        // be able to flood the schedule.
        let rdates = properties(of: component, ICAL_RDATE_PROPERTY).count
        if max(alarms.count, 1) * (rdates + 1) > Limits.remindersPerItem {
            throw .refused(localized("it asks for %1$d reminders (%2$d alarms, %3$d RDATEs); Chime takes at most %4$d of one item",
                                     max(alarms.count, 1) * (rdates + 1), alarms.count, rdates, Limits.remindersPerItem))
        }
        if alarms.isEmpty {
            plan.whens = [try whenText(start, zone: zone)]
            (plan.leads, plan.alarms, plan.once) = ([0], [""], [false])
        }
        // The start as an instant, where its time has a zone: an absolute alarm's lead is counted from it.
        let startInstant: Int? = start.zone == nil ? nil : Int(icaltime_as_timet(icaltime_convert_to_zone(start, icaltimezone_get_utc_timezone())))
        // Thunderbird's acknowledgement of all the item's alarms so far, and its snooze of a
        // one-time item, read as python-icalendar's Alarms reads them: an alarm due before
        // the snooze rings at the snooze instead, and is not over while the snooze is later
        // than its acknowledgement. RFC 9074's snooze alarms are alarms like the others.
        let lastAcknowledged = xTime(component, "X-MOZ-LASTACK")
        let snoozedUntil = repeats ? nil : xTime(component, "X-MOZ-SNOOZE-TIME")
        var acknowledged = 0, notShown: [String] = []
        // The alarms of each RDATE's occurrence (RFC 5545 3.8.5.2), each rung once.
        var extraOccurrences: [(key: String, when: String, lead: Double?)] = []
        // One request per instant: several alarms due together (a snooze and the alarm it
        // snoozed, as Chime writes both) ring once, under the first alarm's own key.
        var ringing: [(time: icaltimetype, zone: String, key: String, request: (when: String, lead: Double?, once: Bool), relative: Bool)] = []
        for (index, alarm) in alarms.enumerated() {
            if let place = placeAlarm(index) {
                if !place.isRegion { notShown.append("PROXIMITY=" + place.proximity) }
                continue
            }
            // DISPLAY and AUDIO alarms are for the user at the desktop; an EMAIL or PROCEDURE
            // one is for a mail server or a program Chime is not.
            let action = icalcomponent_get_first_property(alarm, ICAL_ACTION_PROPERTY).map { icalproperty_get_action($0) }
            if let action, action != ICAL_ACTION_DISPLAY, action != ICAL_ACTION_AUDIO {
                notShown.append(icalcomponent_get_first_property(alarm, ICAL_ACTION_PROPERTY).map(value) ?? "X-")
                continue
            }
            guard let property = icalcomponent_get_first_property(alarm, ICAL_TRIGGER_PROPERTY) else {
                throw .refused(localized("a VALARM has no TRIGGER"))
            }
            let trigger = icalproperty_get_trigger(property)
            var time: icaltimetype, timeZone: String, lead: Double?
            if icaltime_is_null_time(trigger.time) == 0 {
                (time, timeZone) = (trigger.time, "UTC")
                lead = startInstant.map { Double($0 - Int(icaltime_as_timet(trigger.time))) }
            } else {
                let related = parameter("RELATED", of: property)?.uppercased() == "END" && icaltime_is_null_time(end) == 0
                (time, timeZone) = related ? (icaltime_add(end, trigger.duration), zone) : (icaltime_add(alarmStart, trigger.duration), alarmStartZone)
                // Both on the item's clock: its length is counted as its wall times are.
                let length = related ? Int(icaltime_as_timet(end)) - Int(icaltime_as_timet(start))
                    : Int(icaltime_as_timet(alarmStart)) - Int(icaltime_as_timet(start))
                lead = Double(-Int(icaldurationtype_as_int(trigger.duration)) - length)
            }
            // RFC 9074 7: a snooze alarm rings once, at its own time, even on a repeating item.
            let isSnooze = isSnoozeAlarm(alarm)
            var key = alarmKey(alarm, index: index)
            if let snoozedUntil, icaltime_compare(time, snoozedUntil) < 0 {
                (time, timeZone, key) = (snoozedUntil, "UTC", "X-MOZ-SNOOZE-TIME")
                lead = startInstant.map { Double($0 - Int(icaltime_as_timet(snoozedUntil))) }
            }
            // RFC 9074 4: an alarm acknowledged at or after its time was seen; one-time, it is over.
            let ownAcknowledgement = icalcomponent_get_first_property(alarm, ICAL_ACKNOWLEDGED_PROPERTY).map { icalproperty_get_acknowledged($0) }
            let seen = [ownAcknowledgement, lastAcknowledged].compactMap { $0 }.max { icaltime_compare($0, $1) < 0 }
            if !repeats || isSnooze, let seen, icaltime_compare(time, seen) <= 0,
               !(snoozedUntil.map { icaltime_compare($0, seen) > 0 } ?? false) {
                acknowledged += 1
                continue
            }
            let request = (when: try whenText(time, zone: timeZone), lead: lead, once: isSnooze || key == "X-MOZ-SNOOZE-TIME")
            if let same = ringing.firstIndex(where: { icaltime_compare($0.time, time) == 0 }) {
                // The snooze stands for the alarms it moved: an alarm of its own at that time names it.
                if ringing[same].key == "X-MOZ-SNOOZE-TIME", key != "X-MOZ-SNOOZE-TIME" { ringing[same] = (time, timeZone, key, request, false) }
                if !repeats { continue }
            }
            ringing.append((time, timeZone, key, request, icaltime_is_null_time(trigger.time) != 0 && !request.once))
        }
        if alarms.isEmpty { ringing.append((start, zone, "", (try whenText(start, zone: zone), 0, false), true)) }
        // RFC 5545 3.8.5.2: each RDATE is one more occurrence, which an alarm relative to the
        // item rings ahead of as it does of the first; one an EXDATE names is not one.
        let excluded = Set(properties(of: component, ICAL_EXDATE_PROPERTY).map(value))
        for property in properties(of: component, ICAL_RDATE_PROPERTY) where !excluded.contains(value(property)) {
            let given = icalproperty_get_rdate(property)
            var occurrence = startOfDay(icaltime_is_null_time(given.time) == 0 ? given.time : given.period.start)
            if occurrence.zone != nil, let zone = start.zone { occurrence = icaltime_convert_to_zone(occurrence, zone) }
            // Counted on the wall clock, as the item's zone keeps it: a day later is the same hour.
            var (from, to) = (start, occurrence)
            (from.zone, to.zone) = (nil, nil)
            let shift = icaldurationtype_from_int(Int32(icaltime_as_timet(to) - icaltime_as_timet(from)))
            for alarm in ringing where alarm.relative {
                var time = alarm.time
                time = icaltime_add(time, shift)
                let when = try whenText(time, zone: alarm.zone)
                extraOccurrences.append((key: alarm.key + Self.rdateKey + value(property), when: when, lead: alarm.request.lead))
            }
        }
        if alarms.isEmpty { ringing.removeLast() }
        for alarm in ringing {
            plan.alarms.append(alarm.key)
            plan.whens.append(alarm.request.when)
            plan.leads.append(alarm.request.lead)
            plan.once.append(alarm.request.once)
        }
        for extra in extraOccurrences {
            plan.alarms.append(extra.key)
            plan.whens.append(extra.when)
            plan.leads.append(extra.lead)
            plan.once.append(true)
        }
        // Thunderbird's snooze of an occurrence of a repeating item (X-MOZ-SNOOZE-TIME-<µs>): once.
        if repeats, !alarms.contains(where: isSnoozeAlarm) {
            for (name, snoozed) in snoozeTimes(component) where name != "X-MOZ-SNOOZE-TIME" {
                plan.alarms.append(name)
                plan.whens.append(try whenText(snoozed, zone: "UTC"))
                plan.leads.append(startInstant.map { Double($0 - Int(icaltime_as_timet(snoozed))) })
                plan.once.append(true)
            }
        }
        if !regions.isEmpty { plan.region = region(regions) }
        if !notShown.isEmpty {
            // TRANSLATORS: %1$s lists alarm kinds, such as EMAIL.
            let note = localized("its %1$s alarms are not ones Chime shows", notShown.joined(separator: ", "))
            guard !plan.whens.isEmpty || plan.region != nil else { throw .skipped(note) }
            plan.notes.append(note)
        }
        if !alarms.isEmpty, plan.whens.isEmpty, plan.region == nil {
            throw .skipped(acknowledged > 0 ? localized("its alarms were acknowledged") : localized("it has no alarm Chime shows"))
        }
        plan.rule = try repeatRule(component, start: start)
        if plan.rule != nil {
            for property in properties(of: component, ICAL_EXDATE_PROPERTY) {
                // An all-day item's EXDATE is a date: its midnight, on the start's clock.
                let excluded = icalproperty_get_exdate(property)
                let excludedZone = excluded.is_date != 0 ? zone : try zoneName(property, excluded)
                plan.skipped.append(try whenText(startOfDay(excluded), zone: excludedZone))
            }
        }
        return try described(component, plan)
    }

    /// `plan` with what the item shows: its title, body, location and Chime's own fields.
    private static func described(_ component: OpaquePointer, _ plan: ImportPlan) throws(ImportRefusal) -> ImportPlan {
        var plan = plan
        let title = text(icalcomponent_get_summary(component)) ?? ""
        guard !title.isEmpty else { throw .refused(localized("it has no SUMMARY to show as the title")) }
        plan.fields = [("title", .string(title)), ("body", .string(text(icalcomponent_get_description(component)) ?? ""))]
        if let location = text(icalcomponent_get_location(component)), !location.isEmpty { plan.fields.append(("location", .string(location))) }
        for (key, value) in try chimeFields(component) {
            // Only a place's reminder has crossings to count.
            if key == "regionTriggersOnce" { plan.regionTriggersOnce = value.boolValue } else { plan.fields.append((key, value)) }
        }
        return plan
    }

    /// The place the item's place alarms name (the first one's), entered or left as they say.
    private static func region(_ alarms: [PlaceAlarm]) -> ImportPlan.Region {
        let first = alarms[0]
        return ImportPlan.Region(latitude: first.latitude ?? 0, longitude: first.longitude ?? 0,
                                 radius: min(max(first.radius ?? 100, 1), 100_000), identifier: first.title ?? "",
                                 onEntry: alarms.contains { $0.proximity == "ARRIVE" }, onExit: alarms.contains { $0.proximity == "DEPART" },
                                 alarm: first.uid.isEmpty ? "#\(first.position)" : first.uid)
    }

    /// The properties Chime reads of an item and its alarms: one libical could not read
    /// costs the item, any other is left as it is.
    static let propertiesRead: Set<String> = [
        "DTSTART", "DTEND", "DUE", "DURATION", "RRULE", "RDATE", "EXDATE", "RECURRENCE-ID", "TRIGGER", "SUMMARY",
        "DESCRIPTION", "STATUS", "UID", "ACTION",
    ]

    /// Whether libical's note (an X-LIC-ERROR) is about a property Chime reads, or about
    /// one it cannot name: "… in TRIGGER property. …", "… for property RELATED-TO: …",
    /// "Parse error in property name: LINK".
    static func costsSomething(_ note: String) -> Bool {
        let name: Substring?
        if note.hasPrefix("Parse error in property name: ") {
            name = note.dropFirst("Parse error in property name: ".count).prefix { $0 != " " }
        } else if let range = note.ranges(of: " for property ").first {
            name = note[range.upperBound...].prefix { $0 != ":" && $0 != " " }
        } else if let range = note.ranges(of: " property. ").first ?? note.ranges(of: " property: ").first, let start = note[..<range.lowerBound].lastIndex(of: " ") {
            name = note[note.index(after: start)..<range.lowerBound]
        } else {
            name = nil
        }
        guard let name, !name.isEmpty else { return true }
        let upper = name.uppercased()
        return propertiesRead.contains(upper) || upper.hasPrefix("X-CHIME-")
    }

    /// The UTC time an X- property of `component` holds (`X-MOZ-LASTACK:20301010T100000Z`); nil without one.
    private static func xTime(_ component: OpaquePointer, _ name: String) -> icaltimetype? {
        guard let property = properties(of: component, ICAL_X_PROPERTY).first(where: { text(icalproperty_get_x_name($0))?.uppercased() == name })
        else { return nil }
        var time = icaltime_from_string(xValue(property))
        guard icaltime_is_null_time(time) == 0 else { return nil }
        time.zone = icaltimezone_get_utc_timezone()
        return time
    }

    /// Whether `alarm` is a snooze of another (RFC 9074 7: `RELATED-TO;RELTYPE=SNOOZE`).
    private static func isSnoozeAlarm(_ alarm: OpaquePointer) -> Bool {
        properties(of: alarm, ICAL_RELATEDTO_PROPERTY).contains { parameter("RELTYPE", of: $0)?.uppercased() == "SNOOZE" }
    }

    /// Thunderbird's snooze times of the item, by property name: `X-MOZ-SNOOZE-TIME`, and
    /// `X-MOZ-SNOOZE-TIME-<occurrence in µs>` on a repeating one; those still to come only.
    private static func snoozeTimes(_ component: OpaquePointer) -> [(String, icaltimetype)] {
        properties(of: component, ICAL_X_PROPERTY).compactMap { property in
            guard let name = text(icalproperty_get_x_name(property))?.uppercased(), name.hasPrefix("X-MOZ-SNOOZE-TIME") else { return nil }
            var time = icaltime_from_string(xValue(property))
            guard icaltime_is_null_time(time) == 0 else { return nil }
            time.zone = icaltimezone_get_utc_timezone()
            return (name, time)
        }
    }

    /// What joins an alarm's key and an RDATE's value in the key of that alarm of that
    /// occurrence: neither a UID nor a date holds it.
    static let rdateKey = "|RDATE:"

    /// Which alarm of its item `alarm` is: its UID (RFC 9074 4), Apple's X-WR-ALARMUID or
    /// Evolution's X-EVOLUTION-ALARM-UID, or else `#` and its place among the item's alarms from 1.
    private static func alarmKey(_ alarm: OpaquePointer, index: Int) -> String {
        if let uid = text(icalcomponent_get_uid(alarm)), !uid.isEmpty { return uid }
        for name in ["X-WR-ALARMUID", "X-EVOLUTION-ALARM-UID"] {
            let own = properties(of: alarm, ICAL_X_PROPERTY).first { text(icalproperty_get_x_name($0))?.uppercased() == name }
            if let own, case let uid = xValue(own), !uid.isEmpty { return uid }
        }
        return "#\(index + 1)"
    }

    /// The IANA zone of a time: "UTC", a name, "" for a floating time; a time in a zone
    /// only the file's VTIMEZONE defines is turned into an instant ("UTC" after conversion).
    private static func zoneName(_ property: OpaquePointer, _ time: icaltimetype) throws(ImportRefusal) -> String {
        if icaltime_is_utc(time) != 0 { return "UTC" }
        guard let tzid = parameter("TZID", of: property) else { return "" }
        if let name = ianaZone(tzid) { return name }
        if time.zone != nil { return "VTIMEZONE" }
        throw .refused(localized("TZID '%1$s' is no known time zone and the file has no VTIMEZONE for it", tzid))
    }

    /// An all-day item's date as the time its day starts at (`at`): midnight, where RFC 5545
    /// and Thunderbird put its alarms' offsets, or the user's choice (GNOME and Apple ring
    /// an all-day item at 09:00). libical adds no hours to a date.
    /// Why `time` names no day and time (month 13, 31 April, hour 25); nil when it names one, or is null.
    private static func impossibility(_ time: icaltimetype) -> String? {
        guard icaltime_is_null_time(time) == 0 else { return nil }
        if !(1...12).contains(time.month) { return localized("month %1$d is out of range", Int(time.month)) }
        let leap = time.year % 4 == 0 && (time.year % 100 != 0 || time.year % 400 == 0)
        let days: Int32 = time.month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(time.month) ? 30 : 31
        if !(1...days).contains(time.day) {
            return localized("day %1$d is out of range", Int(time.day))
        }
        if !(0...23).contains(time.hour) || !(0...59).contains(time.minute) || !(0...60).contains(time.second) {
            return localized("%1$s is not a time of day", String(localText(time).suffix(8)))
        }
        return nil
    }

    private static func startOfDay(_ time: icaltimetype, at start: (hour: Int, minute: Int)) -> icaltimetype {
        var time = time
        if time.is_date != 0 { (time.is_date, time.hour, time.minute, time.second) = (0, Int32(start.hour), Int32(start.minute), 0) }
        return time
    }

    /// `when` for a time read in `zone` (see ``zoneName(_:_:)``).
    private static func whenText(_ time: icaltimetype, zone: String) throws(ImportRefusal) -> String {
        switch zone {
        case "": return localText(time)
        case "UTC": return localText(time) + "+00:00"
        case "VTIMEZONE": return localText(icaltime_convert_to_zone(time, icaltimezone_get_utc_timezone())) + "+00:00"
        default: return localText(time) + "[" + zone + "]"
        }
    }

    /// The component's RRULE, with Chime's unit and count when FREQ and INTERVAL say all
    /// of it (BYDAY, BYMONTHDAY and BYMONTH that only repeat the start's own are allowed).
    /// A monthly or yearly one stays an RRULE, of FREQ and INTERVAL alone: a month's or a
    /// year's `repeat` takes a short month's last day, where RFC 5545 leaves the month out.
    private static func repeatRule(_ component: OpaquePointer, start: icaltimetype) throws(ImportRefusal) -> RepeatRule? {
        let rules = properties(of: component, ICAL_RRULE_PROPERTY)
        guard let property = rules.first else { return nil }
        if rules.count > 1 { throw .refused(localized("it has more than one RRULE")) }
        var rule = RepeatRule(text: value(property))
        let recurrence = icalproperty_get_rrule(property)
        let units: [icalrecurrencetype_frequency: String] = [
            ICAL_MINUTELY_RECURRENCE: "minute", ICAL_HOURLY_RECURRENCE: "hour", ICAL_DAILY_RECURRENCE: "day",
            ICAL_WEEKLY_RECURRENCE: "week", ICAL_MONTHLY_RECURRENCE: "month", ICAL_YEARLY_RECURRENCE: "year",
        ]
        func list<T>(_ array: T) -> [Int16] {
            withUnsafeBytes(of: array) { Array($0.bindMemory(to: Int16.self).prefix { $0 != Int16(ICAL_RECURRENCE_ARRAY_MAX.rawValue) }) }
        }
        let weekday = Int16(icaltime_day_of_week(start))
        let byDay = list(recurrence.by_day), byMonthDay = list(recurrence.by_month_day), byMonth = list(recurrence.by_month)
        let onlyStart = (byDay.isEmpty || (byDay == [weekday] && recurrence.freq == ICAL_WEEKLY_RECURRENCE))
            && (byMonthDay.isEmpty || byMonthDay == [Int16(start.day)]) && (byMonth.isEmpty || byMonth == [Int16(start.month)])
        let others = [list(recurrence.by_second), list(recurrence.by_minute), list(recurrence.by_hour),
                      list(recurrence.by_year_day), list(recurrence.by_week_no), list(recurrence.by_set_pos)]
        // RFC 7529's RSCALE is chimed's to read or refuse, never to drop.
        if onlyStart, others.allSatisfy(\.isEmpty), recurrence.count == 0, icaltime_is_null_time(recurrence.until) != 0,
           recurrence.rscale == nil, let unit = units[recurrence.freq] {
            rule.unit = unit
            rule.every = max(1, Int(recurrence.interval))
            if recurrence.freq == ICAL_MONTHLY_RECURRENCE || recurrence.freq == ICAL_YEARLY_RECURRENCE {
                rule.text = "FREQ=" + (unit == "month" ? "MONTHLY" : "YEARLY") + (rule.every > 1 ? ";INTERVAL=\(rule.every)" : "")
                rule.unit = nil
            }
        }
        return rule
    }

    /// The X-CHIME-* properties as Schedule keys.
    private static func chimeFields(_ component: OpaquePointer) throws(ImportRefusal) -> [(String, Value)] {
        var fields: [(String, Value)] = []
        var actions: [Value] = [], options: [String: [(String, Value)]] = [:], optionOrder: [String] = [], data: [(String, Value)] = []
        for property in properties(of: component, ICAL_X_PROPERTY) {
            guard let name = text(icalproperty_get_x_name(property))?.uppercased(), name.hasPrefix("X-CHIME-") else { continue }
            let content = xValue(property)
            let key = parameter(ChimeProperty.keyParameter, of: property)
            if let field = ChimeProperty.textKeys.first(where: { ChimeProperty.name($0) == name }) {
                fields.append((field, .string(content)))
            } else if let field = ChimeProperty.numberKeys.first(where: { ChimeProperty.name($0) == name }) {
                guard let number = Double(content) else { throw .refused(localized("%1$s '%2$s' is not a number", name, content)) }
                fields.append((field, field == "lateLimit" ? .double(number) : .int64(Int64(number))))
            } else if name == ChimeProperty.name("regionTriggersOnce") {
                fields.append(("regionTriggersOnce", .bool(content.uppercased() != "FALSE")))
            } else if name == ChimeProperty.urgency {
                fields.append(("urgency", .string(content)))
            } else if [ChimeProperty.action, ChimeProperty.actionOption, ChimeProperty.data].contains(name), key == nil {
                throw .refused(localized("%1$s has no %2$s parameter to name its key", name, ChimeProperty.keyParameter))
            } else if name == ChimeProperty.action, let key {
                actions.append(.structure([.string(key), .string(content)]))
            } else if [ChimeProperty.actionOption, ChimeProperty.data].contains(name), typedValue(content) == nil {
                throw .refused(localized("%1$s '%2$s' is not TYPE:VALUE, with TYPE string, int, double or bool", name, content))
            } else if name == ChimeProperty.actionOption, let key, let typed = typedValue(content) {
                guard let option = parameter(ChimeProperty.nameParameter, of: property) else {
                    throw .refused(localized("%1$s has no %2$s parameter to name its option", name, ChimeProperty.nameParameter))
                }
                if options[key] == nil { optionOrder.append(key) }
                options[key, default: []].append((option, typed))
            } else if name == ChimeProperty.data, let key, let typed = typedValue(content) {
                data.append((key, typed))
            } else {
                throw .refused(localized("%1$s is not a Chime property this version reads", name))
            }
        }
        if !actions.isEmpty { fields.append(("actions", .array(element: "(ss)", actions))) }
        if !optionOrder.isEmpty {
            let entries = optionOrder.map { DictionaryEntry(key: .string($0), value: .variantDictionary(options[$0] ?? [])) }
            fields.append(("actionOptions", .dictionary(key: "s", value: "a{sv}", entries)))
        }
        if !data.isEmpty { fields.append(("userInfo", .variantDictionary(data))) }
        return fields
    }
}
