import ChimeCore
import Foundation
import Testing
import TestSupport

/// Repeats checked against a second implementation: python-dateutil's rrule, on Python's
/// zoneinfo, which reads a skipped wall-clock time with the offset before the jump and a
/// repeated one as its first pass, as RFC 5545 and Chime do.
@Suite(.enabled(if: Dateutil.isInstalled, "python3 with dateutil is missing: make test installs python3-dateutil"))
struct RRuleOracleTests {
    static let rules = [
        "FREQ=WEEKLY;BYDAY=MO,WE,FR", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU,SU", "FREQ=WEEKLY;BYDAY=SA,SU;UNTIL=20270601T020000",
        "FREQ=MONTHLY;BYDAY=2TU", "FREQ=MONTHLY;BYDAY=-1SU", "FREQ=MONTHLY;BYDAY=1MO,3TH", "FREQ=MONTHLY;INTERVAL=3;BYDAY=-1FR",
        "FREQ=MONTHLY;BYMONTHDAY=-1", "FREQ=DAILY;COUNT=30", "FREQ=WEEKLY;COUNT=20", "FREQ=MONTHLY;INTERVAL=2;COUNT=12",
    ]
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Europe/Dublin"]
    /// Times inside the gaps and overlaps of those zones, and one outside them.
    static let starts = ["2026-03-01T02:30", "2026-09-20T01:15", "2026-11-25T09:00", "2026-10-01T02:15"]

    @Test func fiftyOccurrencesAgreeWithDateutil() throws {
        var cases: [OracleCase] = []
        for zone in Self.zones {
            for start in Self.starts {
                for rule in Self.rules { cases.append(OracleCase(zone: zone, start: start, rrule: rule, skipped: [])) }
            }
        }
        try agree(cases, about: "the fixed rules")
    }

    /// Rules drawn at random (the seed is in any failure; RRULE_SEED replays one): days of
    /// weeks and months, intervals, counts, ends and skipped occurrences, in zones with and
    /// without daylight saving.
    @Test func randomRulesAgreeWithDateutil() throws {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        let cases = (0..<800).map { _ in OracleCase.random(using: &random) }
        try agree(cases, about: "RRULE_SEED=\(seed)")
    }

    /// Monthly and yearly rules from the 28th to the 31st and from 29 February, which RFC
    /// 5545 leaves out of the months without that day: every interval up to 13, with and
    /// without an end.
    @Test func monthEndsAgreeWithDateutil() throws {
        var cases: [OracleCase] = []
        let zones = ["UTC", "America/New_York", "Australia/Lord_Howe"]
        for (index, (month, day)) in [(1, 28), (1, 29), (1, 30), (1, 31), (3, 31), (8, 31), (12, 29), (2, 29)].enumerated() {
            for interval in 1...13 {
                let year = month == 2 ? 2028 : 2026 + interval % 3
                let start = LocalDateTime(year: year, month: month, day: day, hour: 9, minute: 30)
                let frequency = month == 2 && interval % 2 == 0 ? "YEARLY" : "MONTHLY"
                let ends = ["", ";COUNT=\(interval + 7)", ";UNTIL=\(year + 9)1231T000000"]
                let rrule = "FREQ=\(frequency)" + (interval == 1 ? "" : ";INTERVAL=\(interval)") + ends[(index + interval) % 3]
                cases.append(OracleCase(zone: zones[interval % 3], start: String(start.description.prefix(16)), rrule: rrule,
                                        skipped: interval % 4 == 0 ? [2] : []))
            }
        }
        try agree(cases, about: "the month ends")
    }

    /// Rules with every BY part, BYSETPOS and WKST (``OracleCase/randomGeneral(using:ends:)``).
    @Test func rulesWithEveryPartAgreeWithDateutil() throws {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        let cases = (0..<500).map { _ in OracleCase.randomGeneral(using: &random) }
        try agree(cases, about: "RRULE_SEED=\(seed)")
    }

    /// The first occurrence after an instant years into a rule without an end, as dateutil's
    /// `after` gives it: found from the period of the instant, not by walking to it.
    @Test func theFirstOccurrenceYearsAheadAgreesWithDateutil() throws {
        let seed = Self.seed()
        var random = SplitMix64(seed: seed)
        var built: [(FireRule, Zone, Date)] = []
        var lines: [String] = []
        for _ in 0..<300 {
            let item = OracleCase.randomGeneral(using: &random, ends: false)
            let rule = try zoned(item.zone, item.start, item.rrule)
            let zone = try #require(Zone(identifier: item.zone))
            let start = try #require(LocalDateTime(iso: item.start))
            // dateutil walks from the start: minute and hour rules are asked months and a year or two ahead.
            let days = item.rrule.contains("MINUTELY") ? Int.random(in: 30...150, using: &random)
                : item.rrule.contains("HOURLY") ? Int.random(in: 200...800, using: &random) : Int.random(in: 3 * 365...40 * 365, using: &random)
            let instant = start.adding(days: days).date(in: zone).addingTimeInterval(TimeInterval(Int.random(in: 0..<86_400, using: &random)))
            built.append((rule, zone, instant))
            lines.append("\(item.zone)|\(item.start)|\(item.rrule)|\(Int64(instant.timeIntervalSince1970))")
        }
        let answers = try python(Self.afterScript, lines).map { Int64($0) }
        try #require(answers.count == built.count)
        var disagreements = 0
        for ((rule, zone, instant), (line, answer)) in zip(built, zip(lines, answers)) {
            let ours = rule.nextOccurrence(after: instant, systemZone: zone).map { Int64($0.timeIntervalSince1970) }
            if ours != answer {
                disagreements += 1
                if disagreements <= 5 { Issue.record("RRULE_SEED=\(seed) \(line): Chime \(String(describing: ours)), dateutil \(String(describing: answer))") }
            }
        }
        #expect(disagreements == 0, "\(disagreements) of \(built.count) rules disagree (RRULE_SEED=\(seed))")
    }

    private static let afterScript = """
        import sys
        from datetime import datetime
        from zoneinfo import ZoneInfo
        from dateutil.rrule import rrulestr
        for line in sys.stdin:
            zone, start, text, instant = line.rstrip("\\n").split("|")
            tz = ZoneInfo(zone)
            try:
                rule = rrulestr(text, dtstart=datetime.fromisoformat(start).replace(tzinfo=tz))
            except ValueError:
                # dateutil refuses a rule whose steps never reach its BYHOUR: it never occurs.
                print("-")
                continue
            found = rule.after(datetime.fromtimestamp(int(instant), tz))
            print(int(found.timestamp()) if found else "-")
        """

    /// RRULE_SEED when it is set, to replay a failure; else a new one.
    private static func seed() -> UInt64 {
        ProcessInfo.processInfo.environment["RRULE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
    }

    private func agree(_ cases: [OracleCase], about name: String) throws {
        var built: [(FireRule, Zone)] = []
        var lines: [String] = []
        for item in cases {
            var rule = try zoned(item.zone, item.start, item.rrule)
            let zone = try #require(Zone(identifier: item.zone))
            rule.skipped = Set(item.skipped.compactMap { rule.wallClock(ofOccurrence: $0, systemZone: zone) })
            let exdates = rule.skipped.sorted().map(\.description).joined(separator: ",")
            lines.append("\(item.zone)|\(item.start)|\(item.rrule)|\(exdates)")
            built.append((rule, zone))
        }
        let answers = try dateutil(lines)
        try #require(answers.count == built.count)
        var disagreements = 0
        for ((rule, zone), (line, answer)) in zip(built, zip(lines, answers)) {
            let ours = rule.upcoming(from: .distantPast, count: 50, systemZone: zone).map { Int64($0.timeIntervalSince1970) }
            if ours != answer {
                disagreements += 1
                if disagreements <= 5 { Issue.record("\(name) \(line): Chime \(ours.prefix(6))… dateutil \(answer.prefix(6))…") }
            }
        }
        #expect(disagreements == 0, "\(disagreements) of \(cases.count) rules disagree (\(name))")
    }

    /// The first 50 occurrences of each `zone|start|rrule|exdates` line, as dateutil expands them.
    private func dateutil(_ lines: [String]) throws -> [[Int64]] {
        let script = """
            import sys
            from datetime import datetime
            from zoneinfo import ZoneInfo
            from dateutil.rrule import rrulestr, rruleset
            for line in sys.stdin:
                zone, start, text, exdates = line.rstrip("\\n").split("|")
                tz = ZoneInfo(zone)
                parts = [p for p in text.split(";") if not p.startswith("UNTIL=")]
                until = [p[6:] for p in text.split(";") if p.startswith("UNTIL=")]
                try:
                    rule = rrulestr(";".join(parts), dtstart=datetime.fromisoformat(start).replace(tzinfo=tz))
                except ValueError:
                    # dateutil refuses a rule whose steps never reach its BYHOUR: it never occurs.
                    print("")
                    continue
                if until:
                    # Chime's UNTIL is on the rule's own clock: aware datetimes of one zone compare so.
                    rule = rule.replace(until=datetime.strptime(until[0], "%Y%m%dT%H%M%S").replace(tzinfo=tz))
                both = rruleset()
                both.rrule(rule)
                for exdate in filter(None, exdates.split(",")):
                    both.exdate(datetime.fromisoformat(exdate).replace(tzinfo=tz))
                out = []
                for when in both:
                    if len(out) == 50:
                        break
                    out.append(str(int(when.timestamp())))
                print(" ".join(out))
            """
        return try python(script, lines).map { $0.split(separator: " ").compactMap { Int64($0) } }
    }

    /// What `script` prints for each of `lines`, one line each.
    private func python(_ script: String, _ lines: [String]) throws -> [Substring] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 with dateutil failed (is python3-dateutil installed?)")
        return Array(String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast())
    }
}

/// Whether `/usr/bin/python3` imports dateutil, the oracle's second implementation.
enum Dateutil {
    static let isInstalled: Bool = {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import dateutil.rrule, zoneinfo"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}

/// A rule for both implementations: a zone, a first wall-clock time, an RRULE, and the
/// indexes of occurrences to skip.
struct OracleCase {
    var zone: String
    var start: String
    var rrule: String
    var skipped: [Int]

    private static let zones = [
        "UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Europe/Dublin",
        "Pacific/Chatham", "America/Havana", "Asia/Tokyo",
    ]
    static let weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"]

    static func random(using random: inout SplitMix64) -> OracleCase {
        let zone = zones.randomElement(using: &random)!
        var parts: [String] = []
        // Minute and hour repeats fire a gap's occurrences at the jump, where RFC 5545 moves
        // each by the gap: they are compared where no clock jumps.
        let frequencies = zone == "UTC" ? ["MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY"]
            : ["DAILY", "WEEKLY", "WEEKLY", "MONTHLY", "MONTHLY", "YEARLY"]
        let frequency = frequencies.randomElement(using: &random)!
        parts.append("FREQ=" + frequency)
        if Bool.random(using: &random) { parts.append("INTERVAL=\(Int.random(in: 1...4, using: &random))") }
        if frequency == "WEEKLY", Bool.random(using: &random) {
            let days = weekdays.filter { _ in Bool.random(using: &random) }
            parts.append("BYDAY=" + (days.isEmpty ? ["WE"] : days).joined(separator: ","))
        } else if frequency == "MONTHLY", Int.random(in: 0..<3, using: &random) > 0 {
            if Int.random(in: 0..<4, using: &random) == 0 {
                parts.append("BYMONTHDAY=-1")
            } else {
                var days: [String] = []
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let day = weekdays.randomElement(using: &random)!
                    let ordinal = [1, 2, 3, 4, -1].randomElement(using: &random)!
                    // The 4th and the last of a weekday are refused together (they can be one date).
                    if days.contains(where: { $0.hasSuffix(day) && ($0.hasPrefix("4") || $0.hasPrefix("-1")) }) { continue }
                    if !days.contains("\(ordinal)\(day)") { days.append("\(ordinal)\(day)") }
                }
                parts.append("BYDAY=" + days.joined(separator: ","))
            }
        }
        let year = Int.random(in: 2020...2030, using: &random)
        let month = Int.random(in: 1...12, using: &random)
        // Without days, the 29th to 31st are left out of shorter months, as RFC 5545 says.
        let day = Int.random(in: 1...31, using: &random)
        let lastDay = [31, year % 4 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        let start = LocalDateTime(year: year, month: month, day: min(day, lastDay), hour: Int.random(in: 0...23, using: &random),
                                  minute: [0, 15, 30, 45].randomElement(using: &random)!)
        switch Int.random(in: 0..<3, using: &random) {
        case 0: parts.append("COUNT=\(Int.random(in: 1...60, using: &random))")
        case 1:
            let span = ["MINUTELY": 3_000 * 60, "HOURLY": 300 * 3_600][frequency] ?? 3 * 366 * 86_400
            let end = LocalDateTime(secondsAsUTC: start.secondsAsUTC + Int.random(in: 0...span, using: &random))
            parts.append("UNTIL=" + end.description.filter { $0.isNumber || $0 == "T" })
        default: break
        }
        let skipped = (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: 0..<50, using: &random) }
        return OracleCase(zone: zone, start: String(start.description.prefix(16)), rrule: parts.joined(separator: ";"), skipped: skipped)
    }
}

// MARK: - Every BY part

private extension Int {
    var floorModulo7: Int { ((self % 7) + 7) % 7 }
}

extension OracleCase {
    /// Zones with and without daylight saving; minute and hour rules only where no clock jumps.
    private static let generalZones = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Asia/Tokyo"]

    /// A rule with any of RFC 5545's BY parts, BYSETPOS and WKST, drawn so that it occurs
    /// now and then (both implementations would walk to the year 9999 for one that never does):
    /// parts that can exclude each other entirely are not drawn together. A numbered BYDAY
    /// and a plain one are not mixed either: RFC 5545 takes either, python-dateutil both.
    static func randomGeneral(using random: inout SplitMix64, ends: Bool = true) -> OracleCase {
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func some(_ range: ClosedRange<Int>, _ most: Int) -> [Int] {
            var values: [Int] = []
            for _ in 0..<Int.random(in: 1...most, using: &random) {
                let value = Int.random(in: range, using: &random)
                if !values.contains(value) { values.append(value) }
            }
            return values
        }
        func signed(_ positive: ClosedRange<Int>, _ negative: ClosedRange<Int>, _ most: Int) -> [Int] {
            some(positive, most).map { chance(30) ? -Int.random(in: negative, using: &random) : $0 }
        }
        func list(_ key: String, _ values: [Int]) -> String { key + "=" + values.map(String.init).joined(separator: ",") }
        let zone = generalZones.randomElement(using: &random)!
        let steady = zone == "UTC" || zone == "Asia/Tokyo"
        let frequency = (steady ? ["MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY", "YEARLY"]
            : ["DAILY", "WEEKLY", "MONTHLY", "MONTHLY", "YEARLY", "YEARLY"]).randomElement(using: &random)!
        var parts = ["FREQ=" + frequency]
        if chance(40) { parts.append("INTERVAL=\(Int.random(in: 2...5, using: &random))") }
        var byParts = 0
        let yearly = frequency == "YEARLY", monthly = frequency == "MONTHLY", weekly = frequency == "WEEKLY"
        let shorter = frequency == "HOURLY" || frequency == "MINUTELY"
        // One family of day parts: months and days of months; weeks of the year; days of the year.
        switch Int.random(in: 0..<4, using: &random) {
        case 0 where yearly:
            // Not the last week of a year by its number: python-dateutil counts the weeks of the
            // year before with this year's length, and misses that week's days in January.
            parts.append(list("BYWEEKNO", signed(1...51, 1...2, 3)))
            byParts += 1
            if chance(60) { parts.append("BYDAY=" + some(0...6, 3).map { weekdays[$0] }.joined(separator: ",")) }
        case 1 where yearly || shorter:
            parts.append(list("BYYEARDAY", signed(1...365, 1...365, shorter ? 40 : 4)))
            byParts += 1
        default:
            if chance(50) { parts.append(list("BYMONTH", some(1...12, yearly ? 3 : 6))); byParts += 1 }
            let numbered = (yearly || monthly) && chance(50)
            if !weekly, chance(numbered ? 20 : 50) {
                parts.append(list("BYMONTHDAY", signed(1...28, 1...28, 3)))
                byParts += 1
            } else if numbered {
                let most = yearly && !parts.contains(where: { $0.hasPrefix("BYMONTH=") }) ? 52 : 4
                let days = some(0...6, 3).map { (chance(40) ? "-" : "") + "\(Int.random(in: 1...most, using: &random))" + weekdays[$0] }
                parts.append("BYDAY=" + days.joined(separator: ","))
                byParts += 1
            }
            if !numbered, chance(50) {
                parts.append("BYDAY=" + some(0...6, 4).map { weekdays[$0] }.joined(separator: ","))
                byParts += 1
            }
        }
        if frequency != "MINUTELY" || chance(50) {
            if chance(shorter ? 50 : 30) { parts.append(list("BYHOUR", some(0...23, shorter ? 8 : 3))); byParts += 1 }
        }
        if chance(shorter ? 50 : 25) { parts.append(list("BYMINUTE", some(0...59, frequency == "MINUTELY" ? 20 : 3))); byParts += 1 }
        if chance(10) { parts.append(list("BYSECOND", some(0...59, 2))); byParts += 1 }
        // The first or last of a period is always there: a rule that picks only beyond would never occur.
        if byParts > 0, chance(35) { parts.append(list("BYSETPOS", [chance(50) ? 1 : -1] + signed(2...4, 2...4, 1))) }
        let weekStart = chance(30) ? Int.random(in: 0...6, using: &random) : 0
        if weekStart != 0 { parts.append("WKST=" + weekdays[weekStart]) }
        var start = LocalDateTime(year: Int.random(in: 2020...2030, using: &random), month: Int.random(in: 1...12, using: &random),
                                  day: Int.random(in: 1...28, using: &random), hour: Int.random(in: 0...23, using: &random),
                                  minute: [0, 15, 30, 45].randomElement(using: &random)!)
        // BYSETPOS counts in the whole first week, where python-dateutil counts from the start's
        // day: such a rule starts on its week's first day.
        if weekly, parts.contains(where: { $0.hasPrefix("BYSETPOS=") }) {
            start = start.adding(days: -(start.weekday + 6 - weekStart).floorModulo7)
        }
        if ends {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: parts.append("COUNT=\(Int.random(in: 1...60, using: &random))")
            case 1:
                let span = ["MINUTELY": 20 * 86_400, "HOURLY": 200 * 86_400][frequency] ?? 6 * 366 * 86_400
                let end = LocalDateTime(secondsAsUTC: start.secondsAsUTC + Int.random(in: 0...span, using: &random))
                parts.append("UNTIL=" + end.description.filter { $0.isNumber || $0 == "T" })
            default: break
            }
        }
        let skipped = ends ? (0..<Int.random(in: 0...2, using: &random)).map { _ in Int.random(in: 0..<50, using: &random) } : []
        return OracleCase(zone: zone, start: String(start.description.prefix(16)), rrule: parts.joined(separator: ";"), skipped: skipped)
    }
}
