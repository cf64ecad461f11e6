import DBus
import Foundation
import ICS
import Testing
import TestSupport

/// Which alarms of a calendar item are still to ring, as Chime reads them and as
/// python-icalendar's `icalendar.alarms.Alarms` (RFC 9074, Thunderbird's X-MOZ-LASTACK
/// and X-MOZ-SNOOZE-TIME) computes them, over generated items: acknowledgements before,
/// at and after their alarm, snooze alarms, Thunderbird's snoozes, triggers relative to
/// the start, the end or absolute, events and tasks.
@Suite(.enabled(if: AlarmOracle.python != nil, "python-icalendar is missing: make test installs it in .build/oracle"))
struct AlarmOracleTests {
    @Test func theAlarmsStillToRingAgreeWithPythonIcalendar() throws {
        var random = SplitMix64(seed: 20_261_129)
        let items = (0..<400).map { Self.item(&random, index: $0) }
        let expected = try AlarmOracle.activeTimes(items)
        var disagreements: [String] = []
        for (text, oracle) in zip(items, expected) {
            let found = try #require(CalendarText.components(of: text)?.first)
            let ours: Set<Int64>
            switch found.plan {
            case .failure(let refusal): ours = []; _ = refusal
            case .success(let plan):
                let requests = (try? plan.requests { _, _, _ in 1 }) ?? []
                ours = Set(requests.compactMap { request in request.request.first { $0.0 == "when" }?.1.stringValue.flatMap(Self.instant) })
            }
            if ours != oracle { disagreements.append("Chime \(ours.sorted()), python-icalendar \(oracle.sorted()):\n\(text)") }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(items.count) disagree; the first:\n\(disagreements.first ?? "")")
    }

    /// A `when` as Unix seconds: UTC, a named zone, or floating (read as UTC, as the oracle is told).
    static func instant(_ when: String) -> Int64? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        var text = when, zone = "UTC"
        if text.hasSuffix("+00:00") { text = String(text.dropLast(6)) }
        if let open = text.firstIndex(of: "[") {
            zone = String(text[text.index(after: open)...].dropLast())
            text = String(text[..<open])
        }
        formatter.timeZone = TimeZone(identifier: zone)
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) }
    }

    // MARK: - Generated items

    static let base = 1_906_000_000  // 2030-05-25T…Z: every time is to come

    static func utc(_ seconds: Int) -> String {
        let date = Date(timeIntervalSince1970: TimeInterval(seconds))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: date)
    }

    static func local(_ seconds: Int, _ zone: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss"
        formatter.timeZone = TimeZone(identifier: zone)
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func item(_ random: inout SplitMix64, index: Int) -> String {
        let isTask = random.next(4) == 0
        let start = base + random.next(30) * 86_400 + random.next(96) * 900
        let length = (1 + random.next(8)) * 900
        let zone = ["UTC", "Europe/Berlin", "America/New_York"][random.next(3)]
        func time(_ name: String, _ seconds: Int) -> String {
            zone == "UTC" ? "\(name):\(utc(seconds))" : "\(name);TZID=\(zone):\(local(seconds, zone))"
        }
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//chime//oracle//EN", isTask ? "BEGIN:VTODO" : "BEGIN:VEVENT",
                     "UID:\(index)@oracle", "DTSTAMP:20261129T000000Z", "SUMMARY:Item \(index)"]
        if isTask {
            if random.next(2) == 0 { lines.append(time("DTSTART", start)) }
            lines.append(time("DUE", start + length))
        } else {
            lines += [time("DTSTART", start), time("DTEND", start + length)]
        }
        // Acknowledgements and snoozes fall before, at or after the alarms they may cover.
        func near(_ seconds: Int) -> Int { seconds + [-3_600, -60, 0, 60, 3_600, 86_400][random.next(6)] }
        var alarmTimes: [Int] = []
        for number in 0..<(1 + random.next(3)) {
            var alarm = ["BEGIN:VALARM", "UID:a\(number)", "ACTION:" + ["DISPLAY", "AUDIO", "DISPLAY"][random.next(3)], "DESCRIPTION:x"]
            let minutes = [0, 5, 15, 60, 1_440][random.next(5)]
            switch random.next(4) {
            case 0:
                let at = start - 7_200 + random.next(8) * 900
                alarm.append("TRIGGER;VALUE=DATE-TIME:" + utc(at))
                alarmTimes.append(at)
            case 1 where !isTask || lines.contains(where: { $0.hasPrefix("DTSTART") }):
                alarm.append("TRIGGER:-PT\(minutes)M")
                alarmTimes.append(start - minutes * 60)
            case 2:
                alarm.append("TRIGGER;RELATED=END:PT\(minutes)M")
                alarmTimes.append(start + length + minutes * 60)
            default:
                alarm.append("TRIGGER;RELATED=END:-PT\(minutes)M")
                alarmTimes.append(start + length - minutes * 60)
            }
            if random.next(3) == 0, let last = alarmTimes.last { alarm.append("ACKNOWLEDGED:" + utc(near(last))) }
            alarm.append("END:VALARM")
            lines += alarm
        }
        if random.next(5) == 0, let first = alarmTimes.first {
            // RFC 9074 7: the first alarm acknowledged and snoozed by a sibling.
            let until = first + 1_800
            lines += ["BEGIN:VALARM", "UID:snooze", "ACTION:DISPLAY", "DESCRIPTION:x", "TRIGGER;VALUE=DATE-TIME:" + utc(until),
                      "RELATED-TO;RELTYPE=SNOOZE:a0", "END:VALARM"]
        }
        if random.next(3) == 0, let any = alarmTimes.randomElement(using: &random) {
            let acknowledged = near(any)
            lines.append("X-MOZ-LASTACK:" + utc(acknowledged))
            if random.next(2) == 0 { lines.append("X-MOZ-SNOOZE-TIME:" + utc(acknowledged + [300, 1_800, 7_200][random.next(3)])) }
        }
        lines += [isTask ? "END:VTODO" : "END:VEVENT", "END:VCALENDAR", ""]
        return lines.joined(separator: "\r\n")
    }
}

/// python-icalendar in `.build/oracle` (make test makes it: Debian's is too old for `alarms`).
enum AlarmOracle {
    static let python: URL? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let python = root.appendingPathComponent(".build/oracle/bin/python")
        return FileManager.default.isExecutableFile(atPath: python.path) ? python : nil
    }()

    /// For each text, the Unix seconds of its DISPLAY and AUDIO alarms still active.
    static func activeTimes(_ texts: [String]) throws -> [Set<Int64>] {
        let script = """
            import json, sys
            from zoneinfo import ZoneInfo
            from icalendar import Calendar, vDatetime
            from icalendar.alarms import Alarms
            out = []
            for text in json.load(sys.stdin):
                item = next(c for c in Calendar.from_ical(text).walk() if c.name in ("VEVENT", "VTODO"))
                alarms = Alarms()
                if "DTSTART" in item:
                    alarms.add_component(item)
                else:
                    # A task with a DUE alone: its alarms count from the end (Alarms needs a start otherwise).
                    alarms.set_parent(item)
                    for alarm in item.walk("VALARM"):
                        alarms.add_alarm(alarm)
                    alarms.set_end(item.decoded("DUE"))
                alarms.set_local_timezone(ZoneInfo("UTC"))
                if "X-MOZ-LASTACK" in item:
                    alarms.acknowledge_until(vDatetime.from_ical(str(item["X-MOZ-LASTACK"])))
                if "X-MOZ-SNOOZE-TIME" in item:
                    alarms.snooze_until(vDatetime.from_ical(str(item["X-MOZ-SNOOZE-TIME"])))
                out.append(sorted({int(a.trigger.timestamp()) for a in alarms.active if str(a.alarm.get("ACTION")) in ("DISPLAY", "AUDIO")}))
            json.dump(out, sys.stdout)
            """
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: texts))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python-icalendar failed")
        let lists = try #require(try JSONSerialization.jsonObject(with: data) as? [[Int]])
        return lists.map { Set($0.map(Int64.init)) }
    }
}
