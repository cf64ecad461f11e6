import Foundation
import Testing
import TestSupport

/// `chime add` says what chimed understood, the id first; `chime next` says when a time
/// never comes.
@Suite(.timeLimit(.minutes(10)))
struct AddEchoTests {
    /// Three days from today in the session's zone, and that day at 18:00 as `chime add`
    /// echoes it in the C locale: `Wed 24 Dec 18:00`, with the year when it is not this one.
    func threeDaysAhead(_ session: TestSession) throws -> (day: DateComponents, weekday: String, echoed: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: session.timeZone))
        let now = Date()
        let later = try #require(calendar.date(byAdding: .day, value: 3, to: now))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = calendar.component(.year, from: later) == calendar.component(.year, from: now) ? "EEE d MMM" : "EEE d MMM yyyy"
        let day = calendar.dateComponents([.year, .month, .day], from: later)
        let echoed = formatter.string(from: later) + " 18:00"
        formatter.dateFormat = "EEEE"
        return (day, formatter.string(from: later).lowercased(), echoed)
    }

    @Test func addPrintsTheIdThenTheTimeItUnderstood() throws {
        let session = try TestSession()
        let (day, weekday, echoed) = try threeDaysAhead(session)
        let (year, month, dayOfMonth) = (day.year ?? 0, day.month ?? 0, day.day ?? 0)
        let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        let iso = String(format: "%04d-%02d-%02d 18:00", year, month, dayOfMonth)
        // The same evening said four ways, read by chimed.
        for when in [iso, "\(weekday) 18:00", "18:00 \(weekday)", "\(dayOfMonth) \(months[month - 1]) \(year) 6pm"] {
            let added = try session.run(["chime", "add", "Dentist", "--at", when])
            #expect(added.status == 0, "\(when): \(added)")
            let id = String(added.stdout.prefix { $0 != " " })
            #expect(added.stdout == "\(id)  \(echoed) (in 3 days)\n", "\(when): \(added)")
            // Scripts read the id as the first word.
            #expect(try session.run(["chime", "show", id]).status == 0)
        }
        let soon = try session.run(["chime", "add", "Stand up", "--in", "45m"])
        #expect(soon.stdout.hasSuffix(" (in 45 minutes)\n"), "\(soon)")
        let script = try session.run(["sh", "-c", "read -r id _ && \"$0\" cancel \"$id\"", binDirectory.appendingPathComponent("chime").path],
                                     stdin: soon.stdout)
        #expect(script.status == 0, "\(script)")
    }

    @Test func jsonKeepsTheIdAndAddsTheInstant() throws {
        let session = try TestSession()
        let before = Date().timeIntervalSince1970
        let result = try session.run(["chime", "add", "Tea", "--in", "1h", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(Set(object.keys) == ["id", "nextFire", "nextFireLocal"])
        let next = try #require(object["nextFire"] as? Int)
        #expect(abs(Double(next) - (before + 3_600)) < 60, "\(result)")
        let local = try #require(object["nextFireLocal"] as? String)
        #expect(ISO8601DateFormatter().date(from: local) == Date(timeIntervalSince1970: TimeInterval(next)), "\(result)")
        #expect(try session.run(["chime", "show", try #require(object["id"] as? String)]).status == 0)
    }

    @Test func nextForAOneShotInThePastSaysNever() throws {
        let session = try TestSession()
        let past = try session.run(["chime", "next", "2020-01-01", "10:00"])
        #expect(past.status == 1 && past.stdout.isEmpty && past.stderr == "chime: never: in the past\n", "\(past)")
        let json = try session.run(["chime", "next", "2020-01-01 10:00", "--json"])
        #expect(json.status == 1 && json.stderr == "chime: never: in the past\n", "\(json)")
        // A repeat started in the past still has a future.
        let yearly = try session.run(["chime", "next", "2020-01-01", "10:00", "--repeat", "year", "-n", "1"])
        #expect(yearly.status == 0 && yearly.stdout.hasSuffix("-01-01 10:00\n"), "\(yearly)")
    }

    @Test func badTimesAreUsageErrorsThatSayWhatWasNotUnderstood() throws {
        let session = try TestSession()
        let offset = try session.run(["chime", "add", "Tea", "--at", "2030-12-24T18:00+24:00"])
        #expect(offset.status == 64, "\(offset)")
        #expect(offset.stderr == "chime: --at '2030-12-24T18:00+24:00' has the offset '+24:00', which is not one: "
            + "use Z or ±HH:MM from -23:59 to +23:59.\n", "\(offset)")
        let word = try session.run(["chime", "add", "Tea", "--at", "half past nine"])
        #expect(word.status == 64 && word.stderr.contains("'half' is not understood; use 15:00, 3pm, noon, tomorrow"), "\(word)")
        let zoned = try session.add("Tea", "--at", "2030-12-24T18:00[europe/paris]")
        #expect(try session.run(["chime", "show", zoned]).stdout.contains("Europe/Paris"))
    }
}
