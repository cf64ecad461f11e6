import Foundation
import Testing
import TestSupport

/// `ImportICalendar` and `ExportICalendar` through the real chimed, called with gdbus and
/// dbus-send as any bus caller would, with the samples of Tests/ics.
@Suite(.timeLimit(.minutes(10)))
struct ICalendarBusTests {
    static let target = ["--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime", "--method"]

    func sample(_ name: String) throws -> String {
        try String(contentsOfFile: packageRoot.appendingPathComponent("Tests/ics/\(name).ics").path, encoding: .utf8)
    }

    func gdbus(_ session: TestSession, _ method: String, _ arguments: String...) throws -> ProcessResult {
        try session.run(["gdbus", "call", "--session"] + Self.target + ["io.github.chime.Scheduler1." + method] + arguments)
    }

    /// `text` as a GVariant string literal: gdbus reads its arguments as GVariant text,
    /// and a bare argument that is not one loses its backslashes (RFC 5545 escapes `\n`).
    func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }

    func dbusSend(_ session: TestSession, _ method: String, _ arguments: String...) throws -> ProcessResult {
        try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime", "/io/github/chime/Chime",
                         "io.github.chime.Scheduler1." + method] + arguments)
    }

    /// The `string "…"` values dbus-send printed, in order (its strings are not escaped).
    func strings(_ result: ProcessResult) -> [String] { strings(in: result.stdout) }

    func strings(in output: String) -> [String] {
        output.components(separatedBy: "string \"").dropFirst().map { part in
            guard let end = part.range(of: "\"\n", options: .backwards) ?? part.range(of: "\"", options: .backwards) else { return part }
            return String(part[..<end.lowerBound])
        }
    }

    /// Whether the running chimed has libical mapped.
    func libicalLoaded(_ session: TestSession) throws -> Bool {
        // Read to its end: String(contentsOfFile:) stops a /proc file at its first page
        // (4 KiB, as its size says 0), and where libical lands in the map varies.
        let maps = try #require(FileHandle(forReadingAtPath: "/proc/\(try session.daemonPID())/maps")).readDataToEndOfFile()
        return String(decoding: maps, as: UTF8.self).contains("libical")
    }

    @Test func gdbusImportsAThunderbirdFile() throws {
        let session = try TestSession()
        let result = try gdbus(session, "ImportICalendar", literal(try sample("thunderbird")))
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("], @as [])\n"), "no refusals: \(result)")
        let list = try session.listedJSON()
        #expect(list.count == 2, "\(list)")
        let dentist = try #require(list.first { $0["title"] as? String == "Dentist" })
        #expect(dentist["when"] as? String == "2030-12-03T09:15:00[Europe/Berlin]", "as chime import reads it")
        #expect(dentist["body"] as? String == "Dr. Weber, Hauptstraße 5\nBring the insurance card")
        #expect(result.stdout.contains("'\(dentist["id"] as? String ?? "-")'"), "the ids are answered: \(result)")
    }

    @Test func dbusSendImportsAndSkipsAsChimeImportDoes() throws {
        let session = try TestSession()
        let result = try dbusSend(session, "ImportICalendar", "string:" + (try sample("tasks")))
        #expect(result.status == 0, "\(result)")
        let answered = strings(result)
        let list = try session.listedJSON()
        #expect(list.count == 2 && Set(answered.prefix(2)) == Set(list.compactMap { $0["id"] as? String }), "\(result)\n\(list)")
        #expect(answered.count == 3 && answered[2].contains("Buy a new kettle") && answered[2].contains("skipped"), "\(result)")
    }

    /// ImportICalendarPart: the sentences of refused and skipped components apart, each
    /// naming the line the caller gives; lines that do not fit the text are InvalidArgs.
    @Test func aPartsSentencesComeApartAndNameTheGivenLines() throws {
        let session = try TestSession()
        let text = try sample("malformed")
        let given = [4, 10, 17, 22, 28, 45, 51].map { $0 + 1000 }
        let result = try dbusSend(session, "ImportICalendarPart", "string:" + text, "array:uint32:" + given.map(String.init).joined(separator: ","))
        #expect(result.status == 0, "\(result)")
        // ids, refused, skipped, updated, then the descriptions (arrays of their own).
        let arrays = Array(result.stdout.components(separatedBy: "array [").dropFirst().map { strings(in: $0) }.prefix(4))
        #expect(arrays.count == 4 && result.stdout.contains("\"Still imported\""), "\(result)")
        guard arrays.count == 4 else { return }
        #expect(arrays[0].count == 1 && arrays[1].count == 5 && arrays[2].count == 1 && arrays[3].isEmpty, "\(result)")
        #expect(arrays[2].first?.contains("UID past@example.org, line 1045)") == true, "past is skipped: \(result)")
        for (uid, line) in [("byday", 1010), ("nostart", 1017), ("zone", 1022), ("badbadge", 1028), ("garbage", 1051)] {
            #expect(arrays[1].filter { $0.contains("UID \(uid)@example.org, line \(line))") }.count == 1, "\(uid): \(result)")
        }

        for (lines, sentence) in [("array:uint32:3", "lines: 1 given for 7"), ("array:uint32:0,1,2,3,4,5,6", "counted from 1")] {
            let refused = try dbusSend(session, "ImportICalendarPart", "string:" + text, lines)
            #expect(refused.status != 0 && refused.stderr.contains("InvalidArgs") && refused.stderr.contains(sentence), "\(refused)")
        }
        #expect(try session.listedJSON().count == 1, "a refused call stores nothing")
    }

    @Test func eachMalformedComponentGetsItsRefusalAndNothingOfItIsStored() throws {
        let session = try TestSession()
        let result = try dbusSend(session, "ImportICalendar", "string:" + (try sample("malformed")))
        #expect(result.status == 0, "\(result)")
        let answered = strings(result)
        let list = try session.listedJSON()
        #expect(list.compactMap { $0["title"] as? String } == ["Still imported"], "nothing of a refused component: \(list)")
        let refusals = answered.dropFirst()
        #expect(answered.first == list.first?["id"] as? String && refusals.count == 6, "\(result)")
        for (uid, line) in [("byday", 10), ("nostart", 17), ("zone", 22), ("badbadge", 28), ("past", 45), ("garbage", 51)] {
            #expect(refusals.filter { $0.contains("UID \(uid)@example.org, line \(line))") }.count == 1, "\(uid): \(result)")
        }
        #expect(refusals.contains { $0.contains("\"Two alarms and a bad badge\"") && $0.contains("badge") }, "\(result)")
        #expect(refusals.allSatisfy { $0.split(separator: "\n").count == 1 && $0.hasSuffix(".") }, "one sentence each: \(result)")
    }

    @Test func exportOverTheBusImportsBackTheSame() throws {
        let session = try TestSession()
        _ = try session.add("Tea", "Line one\nline two", "--at", "2030-05-01 10:00", "--repeat", "week", "--sound", "bell",
                            "-A", "done=Done", "--user-info", "plant=fern")
        _ = try session.add("Zoned", "--at", "2030-05-01T10:00:00[America/New_York]")
        let place = try session.add("Milk", "--on-network", "Office Wi-Fi")
        let before = try session.listedJSON().filter { $0["title"] as? String != "Milk" }

        let all = try gdbus(session, "ExportICalendar", "@as []")
        #expect(all.status == 0 && all.stdout.contains("SUMMARY:Tea") && all.stdout.contains("TZID:America/New_York"), "\(all)")
        #expect(all.stdout.contains(place) && all.stdout.contains("place"), "the one left out is named: \(all)")
        let exported = try dbusSend(session, "ExportICalendar", "array:string:" + before.compactMap { $0["id"] as? String }.joined(separator: ","))
        let calendar = try #require(strings(exported).first, "\(exported)")
        #expect(calendar.hasPrefix("BEGIN:VCALENDAR") && strings(exported).count == 1, "\(exported)")

        #expect(try session.run(["chime", "cancel", "--all", "--yes"]).status == 0)
        let imported = try dbusSend(session, "ImportICalendar", "string:" + calendar)
        #expect(imported.status == 0 && strings(imported).count == 2, "\(imported)")
        func comparable(_ list: [[String: Any]]) -> [NSDictionary] {
            list.sorted { "\($0["title"] ?? "")" < "\($1["title"] ?? "")" }
                .map { NSDictionary(dictionary: $0.filter { !["id", "created"].contains($0.key) }) }
        }
        #expect(comparable(try session.listedJSON()) == comparable(before))

        let unknown = try gdbus(session, "ExportICalendar", "['nosuchid']")
        #expect(unknown.status != 0 && unknown.stderr.contains("io.github.chime.Error.NotFound"), "\(unknown)")
    }

    @Test func libicalIsOpenedByTheFirstCallNotAtStartUp() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "list"]).status == 0)
        #expect(try !libicalLoaded(session), "chimed's start-up does not pay for libical")
        #expect(try gdbus(session, "ExportICalendar", "@as []").status == 0)
        #expect(try libicalLoaded(session))
    }

    @Test func badTextIsRefusedAndChimedLivesOn() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "list"]).status == 0)
        let pid = try session.daemonPID()
        var generator = SystemRandomNumberGenerator()
        let junk = String(decoding: (0..<4_000).map { _ in UInt8.random(in: 1...255, using: &generator) }, as: UTF8.self)
        let many = "BEGIN:VCALENDAR\n" + String(repeating: "BEGIN:VEVENT\nSUMMARY:x\nDTSTART:20300101T000000Z\n", count: 300)
        let deep = "BEGIN:VCALENDAR\n" + String(repeating: "BEGIN:VEVENT\n", count: 1_000) + String(repeating: "END:VEVENT\n", count: 1_000)
        let alarms = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:Many\nDTSTART:20300101T000000Z\n"
            + String(repeating: "BEGIN:VALARM\nTRIGGER:-PT1M\nEND:VALARM\n", count: 300) + "END:VEVENT\nEND:VCALENDAR\n"
        let cases: [(String, String)] = [
            ("Just some notes", "not iCalendar: it has no BEGIN:VCALENDAR."),
            // Cut short: the line missing is the last, not the first.
            ("BEGIN:VCALENDAR\nBEGIN:VEVENT\nSUMMARY:x\nDTSTART:20300101T000000Z\nEND:VEVENT\n",
             "not iCalendar: it has no END:VCALENDAR, so it may be cut short."),
            (junk, "not iCalendar"),
            (String(repeating: "BEGIN:VCALENDAR\n", count: 2), ""),
            ("BEGIN:VCALENDAR\n" + junk, ""),
            (many, ""), (deep, ""), (alarms, ""),
            (String(repeating: "x", count: 20_000), "longer than 16384 bytes"),
        ]
        for (text, sentence) in cases {
            let result = try dbusSend(session, "ImportICalendar", "string:" + text)
            if sentence.isEmpty {
                #expect(result.status == 0 || result.stderr.contains("InvalidArgs"), "\(text.prefix(80)): \(result)")
            } else {
                #expect(result.status != 0 && result.stderr.contains("InvalidArgs") && result.stderr.contains(sentence), "\(result)")
            }
        }
        #expect(try session.daemonPID() == pid, "chimed is the same process")
        #expect(try gdbus(session, "Status").status == 0)
    }
}
