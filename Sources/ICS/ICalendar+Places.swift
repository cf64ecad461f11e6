import ChimeAPI
import DBus
import Localization

/// An alarm that rings at a place: RFC 9074 8's `PROXIMITY` with a `VLOCATION` whose URL is a
/// `geo:` URI (RFC 5870), or Apple's form of it (`X-APPLE-PROXIMITY` and
/// `X-APPLE-STRUCTURED-LOCATION` with `X-APPLE-RADIUS`), which Apple Reminders writes.
struct PlaceAlarm: Equatable {
    /// Its place among its item's VALARMs, from 1.
    var position: Int
    /// Its own UID (or Apple's or Evolution's), empty when it has none.
    var uid = ""
    /// ARRIVE, DEPART, CONNECT or DISCONNECT; empty when the alarm has none.
    var proximity = ""
    var latitude: Double?
    var longitude: Double?
    /// Metres: the geo URI's uncertainty (`u=`) or `X-APPLE-RADIUS`.
    var radius: Double?
    var title: String?

    /// ARRIVE or DEPART at a point: an alarm Chime rings at a place.
    var isRegion: Bool { (proximity == "ARRIVE" || proximity == "DEPART") && latitude != nil && longitude != nil }
}

extension ICalendar {
    /// The Apple sentinel a place alarm's TRIGGER carries: long past, so that a client that
    /// knows no place alarm never rings it.
    static let placeTrigger = "19760401T005545Z"

    /// The alarms of each VEVENT and VTODO of `text`, in order, as far as places go. Read
    /// from the text itself: libical 3.0 reads PROXIMITY as an error and drops VLOCATION.
    static func placeAlarms(in text: String) -> [[PlaceAlarm]] {
        var items: [[PlaceAlarm]] = []
        var stack: [String] = []
        var alarm: PlaceAlarm?
        for line in CalendarParts.contentLines(text) {
            let content = CalendarParts.ContentLine(line)
            let (name, parameters, value) = (content.name, content.parameters, content.value)
            if name == "BEGIN" {
                let component = value.uppercased()
                if (component == "VEVENT" || component == "VTODO"), stack.last == "VCALENDAR" { items.append([]) }
                if component == "VALARM", let item = stack.last, item == "VEVENT" || item == "VTODO", !items.isEmpty {
                    alarm = PlaceAlarm(position: items[items.count - 1].count + 1)
                }
                stack.append(component)
                continue
            }
            if name == "END" {
                if value.uppercased() == "VALARM", let done = alarm, !items.isEmpty {
                    items[items.count - 1].append(done)
                    alarm = nil
                }
                if !stack.isEmpty { stack.removeLast() }
                continue
            }
            guard alarm != nil else { continue }
            switch (stack.last, name) {
            case ("VALARM", "PROXIMITY"): alarm?.proximity = value.uppercased()
            case ("VALARM", "X-APPLE-PROXIMITY") where alarm?.proximity.isEmpty == true: alarm?.proximity = value.uppercased()
            case ("VALARM", "UID"), ("VALARM", "X-WR-ALARMUID"), ("VALARM", "X-EVOLUTION-ALARM-UID"):
                if alarm?.uid.isEmpty == true { alarm?.uid = value }
            case ("VALARM", "X-APPLE-STRUCTURED-LOCATION") where alarm?.latitude == nil:
                read(geo: value, into: &alarm)
                if let radius = parameters["X-APPLE-RADIUS"].flatMap(Double.init) { alarm?.radius = radius }
                alarm?.title = parameters["X-TITLE"]
            case ("VLOCATION", "URL"):
                read(geo: value, into: &alarm)
            case ("VLOCATION", "NAME"):
                alarm?.title = value
            default:
                break
            }
        }
        return items
    }

    /// `geo:52.52,13.405;u=200` (RFC 5870): latitude, longitude and the uncertainty in metres.
    private static func read(geo: String, into alarm: inout PlaceAlarm?) {
        guard geo.lowercased().hasPrefix("geo:") else { return }
        let fields = geo.dropFirst(4).split(separator: ";")
        let coordinates = (fields.first ?? "").split(separator: ",").map { Double($0) }
        guard coordinates.count >= 2, let latitude = coordinates[0], let longitude = coordinates[1],
              (-90...90).contains(latitude), (-180...180).contains(longitude) else { return }
        alarm?.latitude = latitude
        alarm?.longitude = longitude
        for field in fields.dropFirst() where field.lowercased().hasPrefix("u=") {
            alarm?.radius = Double(field.dropFirst(2))
        }
    }

    /// The lines of a place alarm of Chime's own, both as RFC 9074 says it and as Apple
    /// writes it, so that either kind of client reads it: what goes into its VALARM.
    static func placeAlarmLines(arrive: Bool, latitude: Double, longitude: Double, radius: Double, title: String, uid: String)
        -> [String] {
        let geo = "geo:\(latitude),\(longitude)"
        let proximity = arrive ? "ARRIVE" : "DEPART"
        // A parameter value with : ; , must be quoted (RFC 5545 3.2), and cannot hold a quote.
        let quotedTitle = "\"" + title.filter { $0 != "\"" && !$0.isNewline } + "\""
        let named = title.isEmpty ? "" : ";X-TITLE=" + quotedTitle
        var lines = ["PROXIMITY:" + proximity, "X-APPLE-PROXIMITY:" + proximity,
                     "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-APPLE-RADIUS=\(Int(radius.rounded()))\(named):\(geo)",
                     "BEGIN:VLOCATION", "UID:\(uid)-location", "URL:\(geo);u=\(Int(radius.rounded()))"]
        if !title.isEmpty { lines.append("NAME:" + escaped(title)) }
        lines.append("END:VLOCATION")
        return lines
    }

    /// TEXT escaped as RFC 5545 3.3.11 says.
    private static func escaped(_ text: String) -> String {
        text.reduce(into: "") { escaped, character in
            switch character {
            case "\\", ";", ",": escaped += "\\" + String(character)
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
    }
}
