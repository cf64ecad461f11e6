import Foundation
import Testing
import TestSupport

/// Times for people follow the locale's LC_TIME; the C locale reads like ISO 8601.
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

    @Test(arguments: ["C", "POSIX", "C.UTF-8"])
    func theCLocaleReadsLikeISO(locale: String) throws {
        let session = try TestSession()
        let id = try addPlants(session)
        let environment: [String: String?] = ["LC_ALL": locale]

        let list = try run(session, environment, ["chime", "list"]).stdout.split(separator: "\n")
        #expect(list.count == 2 && list[1].contains("  2030-01-31 08:00  "), "\(list)")
        let shown = try run(session, environment, ["chime", "show", id]).stdout.split(separator: "\n")
        #expect(shown.contains { $0.hasPrefix("nextFire:") && $0.hasSuffix(" 2030-01-31 08:00") }, "\(shown)")
        #expect(!shown.contains { $0.hasPrefix("nextFireLocal:") })
        let next = try run(session, environment, ["chime", "next", "2030-01-31", "09:00", "--repeat", "month", "--count", "3"])
        #expect(next.stdout == "2030-01-31 09:00\n2030-02-28 09:00\n2030-03-31 09:00\n", "\(next)")

        #expect(try session.run(["chime", "cancel", id]).status == 0)
        let today = try run(session, environment, ["date", "+%Y-%m-%d "]).stdout.trimmingCharacters(in: .newlines)
        let log = try run(session, environment, ["chime", "log"]).stdout.split(separator: "\n")
        #expect(log.count == 2 && log[1].hasPrefix(today), "\(log)")
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
            // The locale's own date format, whatever this glibc makes of de_DE.
            let date = try run(session, environment, ["date", "-d", "2030-01-31 08:00", "+%x"]).stdout
                .trimmingCharacters(in: .newlines)
            #expect(date != "01/31/30" && date.contains("2030"), "de_DE is not in effect: \(date)")
            let list = try run(session, environment, ["chime", "list"]).stdout
            #expect(list.contains("  \(date) 08:00  "), "\(list)")
            let shown = try run(session, environment, ["chime", "show", id]).stdout.split(separator: "\n")
            #expect(shown.contains { $0.hasPrefix("nextFire:") && $0.hasSuffix(" \(date) 08:00") }, "\(shown)")
        }
    }
}
