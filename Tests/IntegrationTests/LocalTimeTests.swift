import Foundation
import Testing
import TestSupport

/// Times for people follow the locale's LC_TIME; the C locale reads in English words.
@Suite(.timeLimit(.minutes(10)))
struct LocalTimeTests {
    /// Glibc's locale sources and compiler: with them a test can make a locale of its
    /// own instead of depending on which ones the machine has installed.
    static let canMakeLocales = FileManager.default.fileExists(atPath: "/usr/share/i18n/locales/de_DE")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/localedef")

    /// Runs a command on the session's bus with `overrides` in its environment (nil removes).
    func run(_ session: TestSession, _ overrides: [String: String?], _ arguments: [String]) throws -> ProcessResult {
        var environment = session.environment
        for (key, value) in overrides { environment[key] = value }
        var argv = arguments
        if argv[0] == "chime" { argv[0] = binDirectory.appendingPathComponent("chime").path }
        let result = try Spawned(argv, environment: environment).finish()
        guard result.status == 0 else { throw TestFailure.failed("\(arguments) failed: \(result)") }
        return result
    }

    /// Schedules one notification at 2030-01-31 08:00 (Berlin); returns its id.
    func addPlants(_ session: TestSession) throws -> String {
        try session.add("Plants", "--at", "2030-01-31 08:00")
    }

    /// One format everywhere: list, show, skip and log write a day as "Thu 31 Jan 2030
    /// 08:00", with the year when it is not this one, and "today"/"tomorrow" near now.
    @Test(arguments: ["C", "POSIX", "C.UTF-8"])
    func theCLocaleWritesDaysInEnglishWords(locale: String) throws {
        let session = try TestSession()
        let id = try addPlants(session)
        let environment: [String: String?] = ["LC_ALL": locale]

        let list = try run(session, environment, ["chime", "list"]).stdout.split(separator: "\n")
        #expect(list.count == 2 && list[1].contains("  Thu 31 Jan 2030 08:00  "), "\(list)")
        let shown = try run(session, environment, ["chime", "show", id]).stdout.split(separator: "\n")
        #expect(shown.contains { $0.hasPrefix("next:") && $0.hasSuffix(" Thu 31 Jan 2030 08:00") }, "\(shown)")
        #expect(!shown.contains { $0.hasPrefix("nextFireLocal:") })
        let next = try run(session, environment, ["chime", "next", "2030-01-31", "09:00", "--repeat", "month", "--count", "3"])
        // next prints a column of full dates, to check a rule against a calendar.
        #expect(next.stdout == "2030-01-31 09:00\n2030-02-28 09:00\n2030-03-31 09:00\n", "\(next)")
        let gym = try session.add("Gym", "--at", "2030-01-07 18:00", "--repeat", "weekly", "--on", "mon,thu")
        let skipped = try run(session, environment, ["chime", "skip", gym])
        #expect(skipped.stdout.hasPrefix("Skipped Mon 7 Jan 2030 18:00; next Thu 10 Jan 2030 18:00 (in "), "\(skipped)")

        // Near now, the day is a word; the log's cancel happened today (or, at midnight, yesterday).
        #expect(try session.run(["chime", "cancel", id]).status == 0)
        let log = try run(session, environment, ["chime", "log"]).stdout.split(separator: "\n")
        #expect(log.count == 2 && (log[1].hasPrefix("today ") || log[1].hasPrefix("yesterday ")), "\(log)")
        let tomorrow = try session.add("Bins", "--at", "tomorrow 9:00")
        let listed = try run(session, environment, ["chime", "list"]).stdout
        #expect(listed.split(separator: "\n").contains { $0.hasPrefix(tomorrow) && $0.contains("  tomorrow 09:00  ") }, "\(listed)")
    }

    /// A day of this year leaves its year out, and a day years away says so in years.
    @Test func thisYearsDaysLeaveTheYearOutAndFarOnesSayYears() throws {
        let session = try TestSession()
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: session.timeZone))
        let now = Date()
        // Ten days ahead at noon, unless that is next year: then ten days back would be past.
        let day = try #require(calendar.date(byAdding: .day, value: 10, to: now))
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = calendar.timeZone
        formatter.dateFormat = "yyyy-MM-dd"
        let added = try session.run(["chime", "add", "Soon", "--at", formatter.string(from: day) + " 12:00"])
        formatter.dateFormat = calendar.component(.year, from: day) == calendar.component(.year, from: now) ? "EEE d MMM" : "EEE d MMM yyyy"
        #expect(added.stdout.hasSuffix("  \(formatter.string(from: day)) 12:00 (in 10 days)\n"), "\(added)")

        let far = try session.run(["chime", "add", "Far", "--at", "2030-06-01 09:00"])
        let years = calendar.dateComponents([.year], from: now, to: try #require(calendar.date(from: DateComponents(year: 2030, month: 6, day: 1, hour: 9)))).year ?? 0
        #expect(far.stdout.hasSuffix("  Sat 1 Jun 2030 09:00 (in \(years) years)\n"), "\(far)")
        #expect(!far.stdout.contains("days"), "\(far)")
    }

    /// A reminder pinned to a zone shows that zone's time first, then the local one.
    @Test func aZonedReminderShowsItsZoneBesideLocalTime() throws {
        let session = try TestSession()
        let added = try session.run(["chime", "add", "Call New York", "--at", "2030-06-01 09:00", "--zone", "America/New_York"])
        #expect(added.stdout.contains("  Sat 1 Jun 2030 09:00 New York, 15:00 here (in "), "\(added)")
        let id = String(added.stdout.prefix { $0 != " " })
        let list = try session.run(["chime", "list"]).stdout
        #expect(list.contains("  Sat 1 Jun 2030 09:00 New York, 15:00 here"), "\(list)")
        let shown = try session.run(["chime", "show", id]).stdout.split(separator: "\n")
        #expect(shown.contains { $0.hasPrefix("next:") && $0.hasSuffix(" Sat 1 Jun 2030 09:00 New York, 15:00 here") }, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("zone:") && $0.hasSuffix(" America/New_York") }, "\(shown)")
        // Late in New York is the next day in Tokyo: the local side says its own day.
        let tokyo = try Spawned([binDirectory.appendingPathComponent("chime").path, "add", "Late call", "--at", "2030-06-01 21:00",
                                 "--zone", "America/New_York"], environment: session.environment.merging(["TZ": "Asia/Tokyo"]) { $1 }).finish()
        #expect(tokyo.stdout.contains("  Sat 1 Jun 2030 21:00 New York, Sun 2 Jun 2030 10:00 here (in "), "\(tokyo)")
    }

    @Test(.enabled(if: LocalTimeTests.canMakeLocales))
    func aLocalesOwnDateAndTimeFormatIsUsed() throws {
        let session = try TestSession()
        let locales = session.directory.appendingPathComponent("locales")
        try FileManager.default.createDirectory(at: locales, withIntermediateDirectories: true)
        _ = try run(session, [:], ["localedef", "-i", "de_DE", "-f", "UTF-8", locales.appendingPathComponent("de_DE.UTF-8").path])
        let id = try addPlants(session)

        // LC_TIME alone decides, as it does for date(1).
        for environment: [String: String?] in [
            ["LOCPATH": locales.path, "LC_ALL": "de_DE.UTF-8"],
            ["LOCPATH": locales.path, "LC_ALL": nil, "LANG": "C", "LC_TIME": "de_DE.UTF-8"],
        ] {
            // The locale's own weekday and date, whatever this glibc makes of de_DE.
            let date = try run(session, environment, ["date", "-d", "2030-01-31 08:00", "+%a %x"]).stdout
                .trimmingCharacters(in: .newlines)
            #expect(!date.contains("01/31/30") && date.contains("2030") && !date.hasPrefix("Thu"), "de_DE is not in effect: \(date)")
            let list = try run(session, environment, ["chime", "list"]).stdout
            #expect(list.contains("  \(date) 08:00  "), "\(list)")
            let shown = try run(session, environment, ["chime", "show", id]).stdout.split(separator: "\n")
            // Its label is in the language of messages, which is German only the first time.
            #expect(shown.contains { $0.contains(": ") && $0.hasSuffix(" \(date) 08:00") }, "\(shown)")
        }
    }
}
