import CICal
import ChimeAPI
import DBus
import Glibc
import Localization

extension ICalendar {
    /// A VCALENDAR of one VEVENT per notification (as `Get` describes each) that iCalendar
    /// can say, with the VTIMEZONE of every zone they name; the text, CRLF-ended as RFC 5545
    /// asks, and a sentence for each notification left out. `systemZone` is the zone floating
    /// times are read in (chimed's), for the skipped occurrences of a floating repeat.
    static func export(_ notifications: [[NotificationKey: Value]], systemZone: String) -> (calendar: String, leftOut: [String]) {
        guard let calendar = icalcomponent_new(ICAL_VCALENDAR_COMPONENT) else { return ("", []) }
        defer { icalcomponent_free(calendar) }
        icalcomponent_add_property(calendar, icalproperty_new_version("2.0"))
        icalcomponent_add_property(calendar, icalproperty_new_prodid("-//Chime//chime export//EN"))
        var zones: [String] = [], leftOut: [String] = []
        // The lines of each place alarm, put in after libical has written the text: it knows
        // neither PROXIMITY nor VLOCATION (RFC 9074 8), and would write an error or nothing.
        var placeLines: [[String]] = []
        for fields in notifications {
            if fields[.region] != nil {
                do throws(ImportRefusal) {
                    icalcomponent_add_component(calendar, try placeTask(fields, lines: &placeLines))
                } catch {
                    switch error { case .refused(let reason), .skipped(let reason): leftOut.append(reason + ".") }
                }
                continue
            }
            let event: OpaquePointer, zone: String?
            do throws(ImportRefusal) {
                (event, zone) = try self.event(fields, systemZone: systemZone)
            } catch {
                switch error { case .refused(let reason), .skipped(let reason): leftOut.append(reason + ".") }
                continue
            }
            if let zone, !zones.contains(zone) {
                zones.append(zone)
                if let vtimezone = icaltimezone_get_component(icaltimezone_get_builtin_timezone(zone)),
                   let copy = icalcomponent_new_clone(vtimezone) {
                    // libical names system zones "/freeassociation.sourceforge.net/Zone/Name", whatever
                    // the prefix: the plain IANA name is what DTSTART's TZID says and every calendar knows.
                    if let tzid = icalcomponent_get_first_property(copy, ICAL_TZID_PROPERTY) { icalproperty_set_tzid(tzid, zone) }
                    icalcomponent_add_component(calendar, copy)
                }
            }
            icalcomponent_add_component(calendar, event)
        }
        guard let text = icalcomponent_as_ical_string_r(calendar) else { return ("", leftOut) }
        defer { Glibc.free(text) }
        var written = String(cString: text)
        for (index, lines) in placeLines.enumerated() {
            let folded = lines.flatMap(CalendarParts.fold).joined(separator: "\r\n")
            written = written.replacing("\(placeMarker):\(index)\r\n", with: folded + "\r\n")
        }
        return (written, leftOut)
    }

    /// A VEVENT or VTODO of one notification: its UID (`ID@chime`), stamp, title and body.
    private static func item(_ kind: icalcomponent_kind, _ fields: [NotificationKey: Value]) throws(ImportRefusal) -> OpaquePointer {
        guard let item = icalcomponent_new(kind) else { throw .refused("libical is out of memory") }
        icalcomponent_set_uid(item, (fields[.id]?.stringValue ?? "") + CalendarText.ownUIDSuffix)
        icalcomponent_set_dtstamp(item, icaltime_current_time_with_zone(icaltimezone_get_utc_timezone()))
        icalcomponent_set_summary(item, fields[.title]?.stringValue ?? "")
        if let body = fields[.body]?.stringValue, !body.isEmpty { icalcomponent_set_description(item, body) }
        return item
    }

    /// The property that holds a place alarm's place in the text until its lines go there.
    private static let placeMarker = "X-CHIME-PLACE-ALARM"

    /// A reminder that fires at a place as a VTODO with no time, and an alarm for each way
    /// it is crossed (ARRIVE, DEPART), as RFC 9074 8 and Apple Reminders write them.
    private static func placeTask(_ fields: [NotificationKey: Value], lines: inout [[String]]) throws(ImportRefusal) -> OpaquePointer {
        let id = fields[.id]?.stringValue ?? ""
        var region: [String: Value] = [:]
        for (key, value) in fields[.region]?.stringKeyedEntries ?? [] { region[key] = value.unwrapped }
        func number(_ key: String) -> Double? {
            if case .double(let value)? = region[key] { return value }
            return region[key]?.integerValue.map(Double.init)
        }
        guard let latitude = number("latitude"), let longitude = number("longitude"), let radius = number("radius") else {
            throw .refused(localized("%1$s fires at a place chimed did not describe; not exported", id))
        }
        let title = fields[.title]?.stringValue ?? ""
        let task = try item(ICAL_VTODO_COMPONENT, fields)
        let identifier = region["identifier"]?.stringValue ?? ""
        let location = fields[.location]?.stringValue ?? identifier
        if !location.isEmpty { icalcomponent_set_location(task, location) }
        let entry = region["notifyOnEntry"]?.boolValue ?? true, exit = region["notifyOnExit"]?.boolValue ?? true
        for arrive in [true, false] where arrive ? entry || !exit : exit || !entry {
            let alarm = icalcomponent_new(ICAL_VALARM_COMPONENT)
            let uid = id + (arrive ? "-arrive" : "-depart") + CalendarText.ownUIDSuffix
            icalcomponent_add_property(alarm, icalproperty_new_uid(uid))
            icalcomponent_add_property(alarm, icalproperty_new_action(ICAL_ACTION_DISPLAY))
            icalcomponent_add_property(alarm, icalproperty_new_description(title))
            // Long past: a client that knows no place alarm never rings it (Apple writes the same).
            let sentinel = icalproperty_new_trigger(icaltriggertype(time: icaltime_from_string(placeTrigger), duration: icaldurationtype_null_duration()))
            icalproperty_set_parameter_from_string(sentinel, "VALUE", "DATE-TIME")
            icalcomponent_add_property(alarm, sentinel)
            let marker = icalproperty_new_x("\(lines.count)")
            icalproperty_set_x_name(marker, placeMarker)
            icalcomponent_add_property(alarm, marker)
            lines.append(placeAlarmLines(arrive: arrive, latitude: latitude, longitude: longitude, radius: radius, title: identifier, uid: uid))
            icalcomponent_add_component(task, alarm)
        }
        var extra = chimeProperties(fields)
        if fields[.regionTriggersOnce]?.boolValue == false, let once = icalproperty_new_x("FALSE") {
            icalproperty_set_x_name(once, ChimeProperty.name("regionTriggersOnce"))
            extra.append(once)
        }
        for property in extra { icalcomponent_add_property(task, property) }
        return task
    }

    /// One notification as a VEVENT whose DTSTART is its time and whose VALARM fires then;
    /// the zone its DTSTART names, if any.
    private static func event(_ fields: [NotificationKey: Value], systemZone: String) throws(ImportRefusal) -> (OpaquePointer, String?) {
        let id = fields[.id]?.stringValue ?? ""
        guard let when = fields[.when]?.stringValue, !when.isEmpty, let at = startTime(when) else {
            throw .refused(localized("%1$s fires on joining or leaving a network, a place iCalendar has no property for (its places are points on a map); not exported", id))
        }
        let title = fields[.title]?.stringValue ?? ""
        let event = try item(ICAL_VEVENT_COMPONENT, fields)
        if let location = fields[.location]?.stringValue, !location.isEmpty { icalcomponent_set_location(event, location) }
        // A reminder that rings ahead of what it is about: the event starts then, and its
        // alarm rings as far ahead (imported again, it is the same reminder).
        let lead = fields[.leadTime].flatMap { value -> Int32? in
            if case .double(let seconds) = value { return Int32(exactly: seconds.rounded()) }
            return value.integerValue.flatMap { Int32(exactly: $0) }
        } ?? 0
        let start = (time: icaltime_add(at.time, icaldurationtype_from_int(lead)), zone: at.zone)
        let dtstart = icalproperty_new_dtstart(start.time)
        if let zone = start.zone { icalproperty_set_parameter_from_string(dtstart, "TZID", zone) }
        icalcomponent_add_property(event, dtstart)
        if let rule = rrule(fields) {
            icalcomponent_add_property(event, icalproperty_new_rrule(rule))
            for skipped in fields[.skipped]?.arrayElements?.compactMap(\.integerValue) ?? [] {
                // EXDATE names the event's occurrence, which starts `lead` after its alarm.
                icalcomponent_add_property(event, exdate(skipped, lead: lead, like: start, systemZone: systemZone))
            }
        }
        let alarm = icalcomponent_new(ICAL_VALARM_COMPONENT)
        icalcomponent_add_property(alarm, icalproperty_new_action(ICAL_ACTION_DISPLAY))
        icalcomponent_add_property(alarm, icalproperty_new_description(title))
        icalcomponent_add_property(alarm, icalproperty_new_trigger(icaltriggertype(time: icaltime_null_time(),
                                                                                   duration: icaldurationtype_from_int(-lead))))
        icalcomponent_add_component(event, alarm)
        for property in chimeProperties(fields) { icalcomponent_add_property(event, property) }
        return (event, start.zone)
    }

    /// DTSTART for `when` as `Get` writes it: an instant with its offset (in UTC), a
    /// wall-clock time with `[Zone/Name]`, or a floating one.
    private static func startTime(_ when: String) -> (time: icaltimetype, zone: String?)? {
        let characters = Array(when)
        guard characters.count >= 19 else { return nil }
        let compact = String(characters[0..<19]).filter { $0 != "-" && $0 != ":" }
        var time = icaltime_from_string(compact)
        guard icaltime_is_null_time(time) == 0 else { return nil }
        let rest = String(characters[19...])
        if rest.hasPrefix("["), rest.hasSuffix("]") {
            let zone = String(rest.dropFirst().dropLast())
            guard let builtin = icaltimezone_get_builtin_timezone(zone) else { return nil }
            time.zone = builtin
            return (time, zone)
        }
        if let sign = rest.first, sign == "+" || sign == "-" || sign == "Z" {
            let parts = rest.dropFirst().split(separator: ":").compactMap { Int32($0) }
            let offset = parts.count == 2 ? (parts[0] * 3600 + parts[1] * 60) * (sign == "-" ? -1 : 1) : 0
            time = icaltime_add(time, icaldurationtype_from_int(-offset))
            time.zone = icaltimezone_get_utc_timezone()
            return (time, nil)
        }
        return rest.isEmpty ? (time, nil) : nil
    }

    /// An occurrence skipped (the Unix time its alarm would have rung, `lead` before the
    /// event) as EXDATE, of the same form as DTSTART (RFC 5545 3.8.5.1): in DTSTART's zone,
    /// in UTC, or floating on the system's clock.
    private static func exdate(_ seconds: Int64, lead: Int32, like start: (time: icaltimetype, zone: String?), systemZone: String)
        -> OpaquePointer {
        let zone: OpaquePointer? = start.zone.flatMap { icaltimezone_get_builtin_timezone($0) }
            ?? (icaltime_is_utc(start.time) != 0 ? icaltimezone_get_utc_timezone() : icaltimezone_get_builtin_timezone(systemZone))
        // A lead's whole days are counted on the event's calendar, the rest in seconds (FireRule.lead).
        var time = icaltime_from_timet_with_zone(time_t(seconds + Int64(lead % 86_400)), 0, zone ?? icaltimezone_get_utc_timezone())
        time = icaltime_add(time, icaldurationtype_from_int(lead / 86_400 * 86_400))
        // On a zone's clock the TZID parameter names the zone, and the time itself is bare.
        if icaltime_is_utc(start.time) == 0 { time.zone = nil }
        let property = icalproperty_new_exdate(time)!
        if let name = start.zone { icalproperty_set_parameter_from_string(property, "TZID", name) }
        return property
    }

    /// The repeat as an RRULE: all of it (COUNT, UNTIL, BYDAY, …) as chimed gives it, else
    /// FREQ and INTERVAL.
    private static func rrule(_ fields: [NotificationKey: Value]) -> icalrecurrencetype? {
        if let rule = fields[.rrule]?.stringValue, !rule.isEmpty { return icalrecurrencetype_from_string(rule) }
        guard let unit = fields[.repeat]?.stringValue, !unit.isEmpty else { return nil }
        if unit.uppercased().contains("FREQ=") { return icalrecurrencetype_from_string(unit) }
        let frequencies = ["minute": "MINUTELY", "hour": "HOURLY", "day": "DAILY", "week": "WEEKLY", "month": "MONTHLY", "year": "YEARLY"]
        guard let frequency = frequencies[unit] else { return nil }
        let every = fields[.every]?.integerValue ?? 1
        return icalrecurrencetype_from_string("FREQ=" + frequency + (every > 1 ? ";INTERVAL=\(every)" : ""))
    }

    /// The fields iCalendar has no property for, as X-CHIME-* properties.
    private static func chimeProperties(_ fields: [NotificationKey: Value]) -> [OpaquePointer] {
        var properties: [OpaquePointer] = []
        func add(_ name: String, _ value: String, _ parameters: [(String, String)] = []) {
            guard let property = icalproperty_new_x(value) else { return }
            icalproperty_set_x_name(property, name)
            for (parameter, text) in parameters { icalproperty_set_parameter_from_string(property, parameter, text) }
            properties.append(property)
        }
        let urgencies = [0: "low", 2: "critical"]
        if let urgency = fields[.urgency]?.integerValue.flatMap({ urgencies[Int($0)] }) { add(ChimeProperty.urgency, urgency) }
        for key in ChimeProperty.textKeys {
            guard let field = NotificationKey(rawValue: key), let text = fields[field]?.stringValue, !text.isEmpty else { continue }
            if field == .calendar, text == "gregorian" { continue }
            add(ChimeProperty.name(key), text)
        }
        for key in ChimeProperty.numberKeys {
            guard let field = NotificationKey(rawValue: key), let value = fields[field]?.unwrapped else { continue }
            if let number = value.integerValue {
                add(ChimeProperty.name(key), String(number))
            } else if case .double(let number) = value {
                add(ChimeProperty.name(key), "\(number)")
            }
        }
        for action in fields[.actions]?.arrayElements ?? [] {
            guard let pair = action.structureFields, pair.count == 2, let key = pair[0].stringValue, let label = pair[1].stringValue else { continue }
            add(ChimeProperty.action, label, [(ChimeProperty.keyParameter, key)])
        }
        for entry in fields[.actionOptions].flatMap({ dictionaryEntries($0) }) ?? [] {
            for option in dictionaryEntries(entry.value) ?? [] {
                add(ChimeProperty.actionOption, typedText(option.value),
                    [(ChimeProperty.keyParameter, entry.key), (ChimeProperty.nameParameter, option.key)])
            }
        }
        for entry in fields[.userInfo].flatMap({ dictionaryEntries($0) }) ?? [] {
            add(ChimeProperty.data, typedText(entry.value), [(ChimeProperty.keyParameter, entry.key)])
        }
        return properties
    }

    private static func dictionaryEntries(_ value: Value) -> [(key: String, value: Value)]? {
        value.unwrapped.stringKeyedEntries
    }
}
