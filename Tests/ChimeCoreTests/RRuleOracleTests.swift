import ChimeCore
import Foundation
import Testing

/// Repeats checked against a second implementation: python-dateutil's rrule, on Python's
/// zoneinfo, which reads a skipped wall-clock time with the offset before the jump and a
/// repeated one as its first pass, as RFC 5545 and Chime do.
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
        var lines: [String] = []
        var rules: [(String, FireRule, TimeZone)] = []
        for zone in Self.zones {
            for start in Self.starts {
                for rule in Self.rules {
                    lines.append("\(zone)|\(start)|\(rule)")
                    rules.append(("\(zone) \(start) \(rule)", try zoned(zone, start, rule), try #require(TimeZone(identifier: zone))))
                }
            }
        }
        let answers = try dateutil(lines)
        try #require(answers.count == rules.count)
        var disagreements = 0
        for ((name, rule, zone), answer) in zip(rules, answers) {
            let ours = (0..<50).compactMap { rule.occurrence($0, systemZone: zone) }.map { Int64($0.timeIntervalSince1970) }
            if ours != answer, disagreements < 5 {
                disagreements += 1
                Issue.record("\(name): Chime \(ours.prefix(6))… dateutil \(answer.prefix(6))…")
            }
        }
        #expect(disagreements == 0)
    }

    /// The first 50 occurrences of each `zone|start|rrule` line, as dateutil expands them.
    private func dateutil(_ lines: [String]) throws -> [[Int64]] {
        let script = """
            import sys
            from datetime import datetime
            from zoneinfo import ZoneInfo
            from dateutil.rrule import rrulestr
            for line in sys.stdin:
                zone, start, text = line.rstrip("\\n").split("|")
                tz = ZoneInfo(zone)
                parts = [p for p in text.split(";") if not p.startswith("UNTIL=")]
                until = [p[6:] for p in text.split(";") if p.startswith("UNTIL=")]
                rule = rrulestr(";".join(parts), dtstart=datetime.fromisoformat(start).replace(tzinfo=tz))
                if until:
                    # Chime's UNTIL is on the rule's own clock: aware datetimes of one zone compare so.
                    rule = rule.replace(until=datetime.strptime(until[0], "%Y%m%dT%H%M%S").replace(tzinfo=tz))
                out = []
                for when in rule:
                    if len(out) == 50:
                        break
                    out.append(str(int(when.timestamp())))
                print(" ".join(out))
            """
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
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            .map { $0.split(separator: " ").compactMap { Int64($0) } }
    }
}
