import Foundation
import Testing
import TestSupport

/// `chime show` as a person reads it: labels in words, values as text, nothing empty.
@Suite(.timeLimit(.minutes(10)))
struct ShowTests {
    @Test func fieldsAreLabelledInWordsAndEmptyOnesLeftOut() throws {
        let session = try TestSession()
        let id = try session.add("Plants", "--at", "2030-01-31 08:00", "--repeat", "month", "--late-limit", "10m",
                                 "--user-info", "plant=fern", "-u", "critical", "-A", "done=Done", "-A", "later=Remind me")
        let shown = try session.run(["chime", "show", id])
        #expect(shown.status == 0, "\(shown)")
        let lines = shown.stdout.split(separator: "\n").map(String.init)
        /// The value on the line labelled `label`.
        func value(_ label: String) -> String? {
            lines.first { $0.hasPrefix(label + ":") }.map { $0.dropFirst(label.count + 1).trimmingCharacters(in: .whitespaces) }
        }
        #expect(value("id") == id)
        #expect(value("title") == "Plants")
        #expect(value("state") == "scheduled")
        #expect(value("next") == "Thu 31 Jan 2030 08:00")
        #expect(value("repeats") == "every month")
        // From the 31st, the repeat's clamp to a short month's last day is RFC 7529's SKIP=BACKWARD.
        #expect(value("rrule") == "FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD")
        #expect(value("late limit") == "10 min")
        #expect(value("urgency") == "critical")
        #expect(value("buttons") == "Done (done), Remind me (later)")
        #expect(value("user info") == "plant=fern")
        #expect(value("created")?.hasPrefix("today ") == true || value("created")?.hasPrefix("yesterday ") == true, "\(lines)")
        // No body, nothing fired, the default calendar: no lines for them; no key names as chimed spells them.
        for label in ["body", "fired", "calendar", "nextFire", "nextFireLocal", "fireCount", "lateLimit", "userInfo", "every"] {
            #expect(value(label) == nil, "\(label) in \(lines)")
        }
        // The values line up in one column.
        let starts = Set(lines.compactMap { line -> Int? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return line[line.index(after: colon)...].firstIndex { $0 != " " }.map { line.distance(from: line.startIndex, to: $0) }
        })
        #expect(starts.count == 1, "\(lines)")
    }
}
