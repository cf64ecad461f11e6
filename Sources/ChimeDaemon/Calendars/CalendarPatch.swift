import ChimeAPI
import ChimeCore
import FoundationEssentials

/// An item's iCalendar text with the few properties Chime owns set, and every other byte
/// as it was: no line is unfolded, reordered or re-encoded, so what other clients wrote
/// (X- properties, components Chime does not read) survives. Lines added are folded at
/// 75 octets (RFC 5545 3.1) and end as the file's lines do.
///
/// What a press writes, as the clients that share the calendar read it:
/// - Complete on a task: `STATUS:COMPLETED`, `COMPLETED`, `PERCENT-COMPLETE:100`, and the
///   item's `LAST-MODIFIED`, `DTSTAMP` and `SEQUENCE` moved on (RFC 5545 3.8.1.11, 3.8.2.1).
/// - An alarm seen (dismissed, or Complete on an event): `ACKNOWLEDGED` on the alarm
///   (RFC 9074 6) and Thunderbird's `X-MOZ-LASTACK` on the item.
/// - Remind later: the alarm acknowledged, and a sibling alarm at the new time, absolute in
///   UTC, `RELATED-TO;RELTYPE=SNOOZE` naming the alarm (RFC 9074 7), which gets a UID when
///   it has none; Thunderbird's `X-MOZ-SNOOZE-TIME` (`-<occurrence in µs>` for a repeating item).
struct CalendarPatch {
    /// Why the text was not patched.
    enum Failure: Error, Equatable, CustomStringConvertible {
        case noItem(uid: String)
        case noAlarm(String)

        var description: String {
            switch self {
            case .noItem(let uid): "it no longer holds the item with UID \(uid)"
            case .noAlarm(let key): "the item no longer has its alarm \(key)"
            }
        }
    }

    /// One content line: unfolded, and as it was written.
    private struct Line {
        var text: String
        var raw: [Substring]
        /// Its name (or BEGIN, END) and value.
        let content: CalendarParts.ContentLine

        init(_ text: String) {
            self.text = text
            raw = CalendarParts.fold(text).map { Substring($0) }
            content = CalendarParts.ContentLine(Substring(text))
        }

        init(raw: [Substring]) {
            self.raw = raw
            text = raw.enumerated().map { $0.offset == 0 ? String($0.element) : String($0.element.dropFirst()) }.joined()
            content = CalendarParts.ContentLine(Substring(text))
        }

        var name: String { content.name }
        var value: String { content.value }

        func isBegin(_ component: String) -> Bool { name == "BEGIN" && value.uppercased() == component }
        func isEnd(_ component: String) -> Bool { name == "END" && value.uppercased() == component }
    }

    private var lines: [Line] = []
    private let lineEnd: String
    private let endsWithLineEnd: Bool

    init(_ text: String) {
        lineEnd = text.contains("\r\n") ? "\r\n" : text.contains("\r") ? "\r" : "\n"
        // By byte: "\r\n" is one Character, which neither "\n" nor "\r" is a suffix of.
        endsWithLineEnd = text.utf8.last == UInt8(ascii: "\n") || text.utf8.last == UInt8(ascii: "\r")
        var physical: [Substring] = []
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if raw.first == " " || raw.first == "\t", !physical.isEmpty {
                physical.append(raw)
                continue
            }
            if !physical.isEmpty { lines.append(Line(raw: physical)) }
            physical = [raw]
        }
        if !physical.isEmpty, !(physical.count == 1 && physical[0].isEmpty) { lines.append(Line(raw: physical)) }
    }

    /// The text, patched.
    var text: String {
        lines.flatMap(\.raw).joined(separator: lineEnd) + (endsWithLineEnd ? lineEnd : "")
    }

    // MARK: - What a press writes

    /// Marks task `uid` (occurrence `recurrence`) completed at `instant`; an event has
    /// nothing to complete, so its alarm `alarm` is acknowledged instead.
    mutating func complete(uid: String, recurrence: String, alarm: String, at instant: Date) throws(Failure) {
        let item = try find(uid: uid, recurrence: recurrence)
        guard lines[item.lowerBound].isBegin("VTODO") else { return try acknowledge(uid: uid, recurrence: recurrence, alarm: alarm, at: instant) }
        let stamp = Self.utc(instant)
        var edits: [(String, String?)] = [("STATUS", "STATUS:COMPLETED"), ("COMPLETED", "COMPLETED:" + stamp),
                                          ("PERCENT-COMPLETE", "PERCENT-COMPLETE:100")]
        edits += stamps(item, at: instant, sequence: true)
        set(edits, in: item)
    }

    /// Completes one occurrence of repeating task `uid`, the one starting at `occurrence`
    /// (its wall-clock time on the item's own clock), as a RECURRENCE-ID override (RFC 5545
    /// 3.8.4.4): an override there is completed, else one is added after the task, with its
    /// summary and its start or due time. False, and nothing written, for an event.
    ///
    /// Clients complete a repeating task in three ways: this override, the task's DUE moved
    /// on to the next occurrence (tasks.org, Nextcloud Tasks), or the task completed and a
    /// new one made for the rest. Chime reads all three; it writes the one that keeps the
    /// series as it is and says which occurrence was done.
    mutating func completeOccurrence(uid: String, occurrence: LocalDateTime, alarm: String, at instant: Date) throws(Failure) -> Bool {
        let master = try find(uid: uid, recurrence: "")
        guard lines[master.lowerBound].isBegin("VTODO") else { return false }
        let own = ownLines(of: master)
        guard let anchor = own.first(where: { lines[$0].name == "DUE" }) ?? own.first(where: { lines[$0].name == "DTSTART" }) else {
            throw .noItem(uid: uid)
        }
        let anchorLine = lines[anchor]
        let digits = occurrence.description.filter { $0.isNumber || $0 == "T" }
        let value = anchorLine.value.count == 8 ? String(digits.prefix(8)) : digits + (anchorLine.value.hasSuffix("Z") ? "Z" : "")
        // The anchor's parameters (TZID, VALUE=DATE) say the same of the occurrence.
        let colon = anchorLine.text.count - anchorLine.value.count - 1
        let parameters = String(anchorLine.text.prefix(colon).dropFirst(anchorLine.name.count))
        if (try? find(uid: uid, recurrence: value)) != nil {
            try complete(uid: uid, recurrence: value, alarm: alarm, at: instant)
            return true
        }
        let stamp = Self.utc(instant)
        var override = ["BEGIN:VTODO", "UID:" + uid, "RECURRENCE-ID" + parameters + ":" + value, "DTSTAMP:" + stamp,
                        anchorLine.name + parameters + ":" + value]
        override += own.filter { ["SUMMARY", "SEQUENCE"].contains(lines[$0].name) }.map { lines[$0].text }
        override += ["STATUS:COMPLETED", "COMPLETED:" + stamp, "PERCENT-COMPLETE:100", "LAST-MODIFIED:" + stamp, "END:VTODO"]
        lines.insert(contentsOf: override.map(Line.init), at: master.upperBound)
        return true
    }

    /// Acknowledges alarm `alarm` of item `uid` (occurrence `recurrence`) at `instant`; an
    /// empty `alarm` (an item without alarms, rung at its start) is acknowledged on the item alone.
    mutating func acknowledge(uid: String, recurrence: String, alarm: String, at instant: Date) throws(Failure) {
        if !alarm.isEmpty {
            set([("ACKNOWLEDGED", "ACKNOWLEDGED:" + Self.utc(instant))], in: try alarmRange(alarm, in: try find(uid: uid, recurrence: recurrence)))
        }
        let item = try find(uid: uid, recurrence: recurrence)
        set([("X-MOZ-LASTACK", "X-MOZ-LASTACK:" + Self.utc(instant))] + stamps(item, at: instant, sequence: false), in: item)
    }

    /// Snoozes alarm `alarm` of item `uid` (occurrence `recurrence`, starting at `occurrence`
    /// for a repeating item) until `until`: the alarm acknowledged, a snooze alarm with UID
    /// `snoozeUID` added after it. Returns the UID the snoozed alarm has now (added when it had none).
    @discardableResult
    mutating func snooze(uid: String, recurrence: String, alarm: String, occurrence: Date?, until: Date, snoozeUID: String,
                         at instant: Date) throws(Failure) -> String {
        var found = try alarmRange(alarm, in: try find(uid: uid, recurrence: recurrence))
        var alarmUID = ownLines(of: found).first { lines[$0].name == "UID" }.map { lines[$0].value } ?? ""
        if alarmUID.isEmpty {
            alarmUID = alarm.hasPrefix("#") ? snoozeUID + "-alarm" : alarm
            set([("UID", "UID:" + alarmUID)], in: found)
        }
        // Each change moves the lines after it: the alarm is found again by its UID.
        found = try alarmRange(alarmUID, in: try find(uid: uid, recurrence: recurrence))
        set([("ACKNOWLEDGED", "ACKNOWLEDGED:" + Self.utc(instant))], in: found)
        found = try alarmRange(alarmUID, in: try find(uid: uid, recurrence: recurrence))
        let description = ownLines(of: found).first { lines[$0].name == "DESCRIPTION" }.map { lines[$0].text } ?? "DESCRIPTION:Reminder"
        let snooze = ["BEGIN:VALARM", "UID:" + snoozeUID, "ACTION:DISPLAY", description,
                      "TRIGGER;VALUE=DATE-TIME:" + Self.utc(until), "RELATED-TO;RELTYPE=SNOOZE:" + alarmUID, "END:VALARM"]
        lines.insert(contentsOf: snooze.map(Line.init), at: found.upperBound)
        let item2 = try find(uid: uid, recurrence: recurrence)
        // Thunderbird names the occurrence of a repeating item by its start in microseconds.
        let snoozeName = occurrence.map { "X-MOZ-SNOOZE-TIME-\(Int64($0.timeIntervalSince1970) * 1_000_000)" } ?? "X-MOZ-SNOOZE-TIME"
        set([("X-MOZ-LASTACK", "X-MOZ-LASTACK:" + Self.utc(instant)), (snoozeName, snoozeName + ":" + Self.utc(until))]
            + stamps(item2, at: instant, sequence: false), in: item2)
        return alarmUID
    }

    // MARK: - Reading

    /// Whether the occurrence of the alarm `alarm` of item `uid` that rang at `rang` is done
    /// by what this text says: the item gone, completed or cancelled, or the alarm (or, as
    /// Thunderbird writes it, the item) acknowledged at or after it rang. Another device's
    /// press, read in a sync, so closes the popup this one shows.
    func isDone(uid: String, recurrence: String, alarm: String, rang: Date) -> Bool {
        guard let item = try? find(uid: uid, recurrence: recurrence) else { return true }
        let own = ownLines(of: item)
        let status = own.first { lines[$0].name == "STATUS" }.map { lines[$0].value.uppercased() }
        if status == "COMPLETED" || status == "CANCELLED" { return true }
        var acknowledged = own.filter { lines[$0].name == "X-MOZ-LASTACK" }.compactMap { Self.instant(lines[$0].value) }
        if !alarm.isEmpty, let range = try? alarmRange(alarm, in: item) {
            acknowledged += ownLines(of: range).filter { lines[$0].name == "ACKNOWLEDGED" }.compactMap { Self.instant(lines[$0].value) }
        }
        return acknowledged.contains { $0 >= rang }
    }

    /// The instant of a UTC DATE-TIME value (`20261129T084500Z`); nil for any other form.
    static func instant(_ value: String) -> Date? {
        let digits = Array(value.utf8)
        guard digits.count == 16, digits[8] == UInt8(ascii: "T"), digits[15] == UInt8(ascii: "Z"),
              let date = Int(value.prefix(8)), let time = Int(value.dropFirst(9).prefix(6)) else { return nil }
        return LocalDateTime(year: date / 10000, month: date / 100 % 100, day: date % 100,
                             hour: time / 10000, minute: time / 100 % 100, second: time % 100).date(in: .utc)
    }

    // MARK: - Finding

    /// The lines of the VEVENT or VTODO with `uid` and `recurrence` (empty: none), BEGIN to END.
    private func find(uid: String, recurrence: String) throws(Failure) -> Range<Int> {
        var index = 0
        while index < lines.count {
            guard lines[index].isBegin("VEVENT") || lines[index].isBegin("VTODO") else {
                index += 1
                continue
            }
            let range = component(at: index)
            let own = ownLines(of: range)
            let itemUID = own.first { lines[$0].name == "UID" }.map { lines[$0].value } ?? ""
            let itemRecurrence = own.first { lines[$0].name == "RECURRENCE-ID" }.map { lines[$0].value } ?? ""
            if itemUID == uid, itemRecurrence == recurrence { return range }
            index = range.upperBound
        }
        throw .noItem(uid: uid)
    }

    /// The range from the BEGIN at `start` to its END (or the end of the text).
    private func component(at start: Int) -> Range<Int> {
        var depth = 0
        for index in start..<lines.count {
            if lines[index].name == "BEGIN" { depth += 1 }
            if lines[index].name == "END" {
                depth -= 1
                if depth == 0 { return start..<(index + 1) }
            }
        }
        return start..<lines.count
    }

    /// The indexes of the lines of `range` that are its own, not its sub-components'.
    private func ownLines(of range: Range<Int>) -> [Int] {
        var own: [Int] = []
        var index = range.lowerBound + 1
        while index < range.upperBound - 1 {
            if lines[index].name == "BEGIN" {
                index = component(at: index).upperBound
            } else {
                own.append(index)
                index += 1
            }
        }
        return own
    }

    /// The VALARM of `item` that `key` names: its UID (or Apple's or Evolution's), or `#n`, its place from 1.
    private func alarmRange(_ given: String, in item: Range<Int>) throws(Failure) -> Range<Int> {
        // The alarm of an RDATE's occurrence is the item's alarm (ICS's rdateKey joins them).
        let key = given.components(separatedBy: "|RDATE:")[0]
        var index = item.lowerBound + 1
        var position = 0
        while index < item.upperBound - 1 {
            guard lines[index].name == "BEGIN" else {
                index += 1
                continue
            }
            let range = component(at: index)
            if lines[index].isBegin("VALARM") {
                position += 1
                let own = ownLines(of: range)
                let uids = ["UID", "X-WR-ALARMUID", "X-EVOLUTION-ALARM-UID"].compactMap { name in
                    own.first { lines[$0].name == name }.map { lines[$0].value }
                }
                if key == "#\(position)" || uids.first(where: { !$0.isEmpty }) == key { return range }
            }
            index = range.upperBound
        }
        throw .noAlarm(key)
    }

    // MARK: - Writing

    /// LAST-MODIFIED and DTSTAMP at `instant`, and SEQUENCE one more when `sequence`.
    private func stamps(_ item: Range<Int>, at instant: Date, sequence: Bool) -> [(String, String?)] {
        var edits: [(String, String?)] = [("LAST-MODIFIED", "LAST-MODIFIED:" + Self.utc(instant)), ("DTSTAMP", "DTSTAMP:" + Self.utc(instant))]
        if sequence {
            let now = ownLines(of: item).first { lines[$0].name == "SEQUENCE" }.flatMap { Int(lines[$0].value) } ?? 0
            edits.append(("SEQUENCE", "SEQUENCE:\(now + 1)"))
        }
        return edits
    }

    /// Sets each property `name` of the component in `range` to `line`: the first line of
    /// that name is replaced in place and any other removed; a property it lacks is added
    /// before its first sub-component (or its END).
    private mutating func set(_ edits: [(name: String, line: String?)], in range: Range<Int>) {
        var end = range.upperBound
        for (name, line) in edits {
            let own = ownLines(of: range.lowerBound..<end).filter { lines[$0].name == name }
            for index in own.dropFirst().reversed() {
                lines.remove(at: index)
                end -= 1
            }
            if let first = own.first {
                if let line { lines[first] = Line(line) } else {
                    lines.remove(at: first)
                    end -= 1
                }
            } else if let line {
                let own = ownLines(of: range.lowerBound..<end)
                var at = end - 1
                for index in (range.lowerBound + 1)..<(end - 1) where lines[index].name == "BEGIN" {
                    at = index
                    break
                }
                if let last = own.last, last + 1 < at, lines[at].name != "BEGIN" { at = last + 1 }
                lines.insert(Line(line), at: at)
                end += 1
            }
        }
    }

    /// `20261129T084500Z`.
    static func utc(_ instant: Date) -> String {
        LocalDateTime(instant, in: .utc).description.filter { $0.isNumber || $0 == "T" } + "Z"
    }
}
