import Foundation
import Testing
import TestSupport

/// Calendars and clocks as the CLI and D-Bus callers see them.
@Suite(.timeLimit(.minutes(10)))
struct CalendarTests {
    /// The names `--calendar` takes, in the order every refusal lists them.
    static let supported = "gregorian, iso8601, buddhist, chinese, coptic, dangi, ethiopicAmeteMihret, hebrew, indian, "
        + "islamic, islamicCivil, islamicTabular, islamicUmmAlQura, japanese, persian, republicOfChina"

    @Test(arguments: ["vietnamese", "ethiopicAmeteAlem", "ethioaa"])
    func calendarsFoundationOnlyPretendsToHaveAreRefusedWithTheSupportedOnes(name: String) throws {
        let session = try TestSession()
        let refusal = "'\(name)' is not a known calendar; use one of \(Self.supported)."
        let add = try session.run(["chime", "add", "Rent", "--at", "9:00", "--repeat", "month", "--calendar", name])
        #expect(add.status == 64, "\(add)")
        #expect(add.stderr == "chime: --calendar " + refusal + "\n", "\(add)")
        let next = try session.run(["chime", "next", "9:00", "--repeat", "month", "--calendar", name])
        #expect(next.status == 64 && next.stderr == "chime: --calendar " + refusal + "\n", "\(next)")

        let typed = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                     "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Schedule",
                                     "{'title': <'Rent'>, 'when': <'9:00'>, 'repeat': <'month'>, 'calendar': <'\(name)'>}"])
        #expect(typed.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: calendar: \(refusal)"), "\(typed)")
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
    }

    /// The commands of *Clocks and calendars* in docs/scheduling.md, each with the times its
    /// comment says it prints (nil when it says none: its times depend on the day it runs).
    static func clockExamples() throws -> [(command: String, times: String?)] {
        let page = try String(contentsOf: packageRoot.appendingPathComponent("docs/scheduling.md"), encoding: .utf8)
        let section = try #require(page.components(separatedBy: "\n## Clocks and calendars\n").dropFirst().first)
            .components(separatedBy: "\n## ")[0]
        let lines = section.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return lines.indices.filter { lines[$0].contains("chime next ") }.map { index in
            let comment = lines.indices.contains(index + 1) && lines[index + 1].hasPrefix("# ") ? lines[index + 1] : nil
            return (lines[index], comment.map { String($0.dropFirst(2)) })
        }
    }

    @Test func theDocumentedRulesPrintWhatTheySay() throws {
        let examples = try Self.clockExamples()
        #expect(examples.count >= 10 && examples.filter { $0.times == nil }.count == 1, "\(examples)")
        let session = try TestSession()
        for (command, times) in examples {
            let result = try session.run(["sh", "-c", "PATH=\"\(binDirectory.path):$PATH\"; " + command])
            #expect(result.status == 0, "\(command)\n\(result)")
            if let times {
                #expect(result.stdout.split(separator: "\n").joined(separator: " | ") == times, "\(command)\n\(result)")
            } else {
                #expect(result.stdout.split(separator: "\n").count == 1, "\(command)\n\(result)")
            }
        }
    }

    @Test func nextPrintsAnOffsetWithItsSeconds() throws {
        // A POSIX zone 4:56:02 west of UTC, as New York's local mean time was until 1883.
        let session = try TestSession()
        var environment = session.environment
        environment["TZ"] = "LMT+4:56:02"
        let next = try Spawned([binDirectory.appendingPathComponent("chime").path, "next", "2030-01-31T12:00:00Z", "--json"],
                               environment: environment).finish()
        #expect(next.status == 0, "\(next)")
        let times = try #require(try JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [[String: Any]])
        #expect(times.map { $0["time"] as? String } == ["2030-01-31T07:03:58-04:56:02"], "\(next)")
        #expect(times.map { $0["timestamp"] as? Int } == [1_896_091_200], "\(next)")
    }
}
