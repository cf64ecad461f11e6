import Foundation
import Testing
import TestSupport

/// `chime list` as a person reads it: id, title, next time and repeat, in a terminal's width.
@Suite(.timeLimit(.minutes(10)))
struct ListTests {
    static let longTitle = "Water the plants on the balcony, the ones in the kitchen and the fern in the hall"

    /// The rows of `chime list` run with `environment` added, header first.
    func listed(_ session: TestSession, _ environment: [String: String] = [:]) throws -> [String] {
        let result = try Spawned([binDirectory.appendingPathComponent("chime").path, "list"],
                                 environment: session.environment.merging(environment) { $1 }).finish()
        #expect(result.status == 0, "\(result)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func theTitleComesBeforeTheLongColumnsAndGivesWayToTheWidth() throws {
        let session = try TestSession()
        let long = try session.add(Self.longTitle, "--at", "2030-01-07 09:30", "--repeat", "weekly", "--on", "weekdays",
                                   "--until", "2030-06-30")
        let short = try session.add("Tea", "--at", "2030-01-08 16:00")

        // COLUMNS says the width, as a terminal of 80 columns would.
        let rows = try listed(session, ["COLUMNS": "80"])
        #expect(rows.count == 3, "\(rows)")
        for row in rows { #expect(row.count <= 80, "\(row.count) columns: \(row)") }
        #expect(rows[0].split(separator: " ", omittingEmptySubsequences: true) == ["ID", "TITLE", "NEXT", "REPEAT"], "\(rows)")
        let cut = try #require(rows.first { $0.hasPrefix(long) })
        // 80 less the id, the date, the repeat and the gaps leaves 15 columns.
        #expect(cut.contains("  Water the plan…  Mon 7 Jan 2030 09:30  every weekday until 30 Jun 2030"), "\(cut)")
        #expect(try #require(rows.first { $0.hasPrefix(short) }).contains("  Tea  "), "\(rows)")

        // A wider terminal cuts less; into a pipe (no COLUMNS) every title is whole, as in --json.
        let wide = try listed(session, ["COLUMNS": "100"])
        #expect(wide.allSatisfy { $0.count <= 100 } && wide.contains { $0.contains("  Water the plants on the balcony, t…  ") }, "\(wide)")
        #expect(try listed(session).contains { $0.contains(Self.longTitle) })
        #expect(try session.listedJSON().contains { $0["title"] as? String == Self.longTitle })
    }

    /// Due with no notification server: pending, listed by the time it came due (before what
    /// is still to come), and `chime show` says the same state.
    @Test func pendingOnesAreAmongTheOthersByTimeAndShowAgrees() throws {
        let session = try TestSession(capabilities: nil)
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let later = try session.add("Later", "--in", "1h")
        let due = try session.add("Due", "--in", "1s")
        _ = try monitor.waitForLine(containing: "Fired ('\(due)'")

        let rows = try listed(session)
        #expect(rows.count == 3, "\(rows)")
        #expect(rows[1].hasPrefix(due), "\(rows)")
        #expect(rows[2].hasPrefix(later), "\(rows)")
        let words = String(try #require(rows[1].firstMatch(of: /pending since (today|yesterday) \d\d:\d\d/), "\(rows)").output.0)
        let shown = try session.run(["chime", "show", due]).stdout.split(separator: "\n")
        #expect(shown.contains { $0.hasPrefix("state:") && $0.hasSuffix(" " + words) }, "\(words) in \(shown)")
    }

    /// A region an app named (CLRegion's identifier) is listed by its name.
    @Test func aPlaceIsNamedInTheList() throws {
        let session = try TestSession()
        let gdbus = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                     "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.ScheduleSimple", "", "Milk", "",
                                     "{'region': '52.5,13.4,150m', 'region.identifier': 'the corner shop', 'region.notifyOnExit': 'true',"
                                        + " 'regionTriggersOnce': 'false'}"])
        #expect(gdbus.status == 0, "\(gdbus)")
        let rows = try listed(session)
        // No system bus here: it waits, and still says where.
        #expect(rows.count == 2 && rows[1].contains("  waiting: on leaving the corner shop  every time"), "\(rows)")
    }
}
