import Foundation
import Testing
import TestSupport

/// `--json` on every command that prints data: valid JSON with the keys its help names.
@Suite(.timeLimit(.minutes(10)))
struct JSONOutputTests {
    /// Runs chime and parses what it printed.
    func json(_ session: TestSession, _ arguments: String...) throws -> Any {
        let result = try session.run(["chime"] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("chime \(arguments) failed: \(result)") }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
    }

    func object(_ session: TestSession, _ arguments: String...) throws -> [String: Any] {
        let result = try session.run(["chime"] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("chime \(arguments) failed: \(result)") }
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    func array(_ session: TestSession, _ arguments: String...) throws -> [[String: Any]] {
        let result = try session.run(["chime"] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("chime \(arguments) failed: \(result)") }
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]], "\(result)")
    }

    @Test func addListShowAndCancelPrintTheirKeys() throws {
        let session = try TestSession()
        let added = try object(session, "add", "Plants", "Water them", "--at", "2030-01-31 08:00", "--repeat", "month",
                               "--late-limit", "10m", "--user-info", "plant=fern", "--json")
        #expect(Set(added.keys) == ["id", "nextFire", "nextFireLocal"])
        let id = try #require(added["id"] as? String)
        let other = try #require(try object(session, "add", "Other", "--in", "1h", "--json")["id"] as? String)

        let listed = try array(session, "list", "--json")
        #expect(listed.map { $0["id"] as? String } == [other, id])
        let element = try #require(listed.last)
        for key in ["id", "title", "body", "when", "state", "nextFire", "nextFireLocal", "repeat", "every", "lateLimit",
                    "userInfo", "created", "fireCount"] {
            #expect(element[key] != nil, "list --json has no \(key): \(element)")
        }
        // show --json is the same object as list --json's element.
        let shown = try object(session, "show", id, "--json")
        #expect(Set(shown.keys) == Set(element.keys))
        #expect(shown["nextFire"] as? Int == element["nextFire"] as? Int)
        #expect(shown["lateLimit"] as? Double == 600)

        #expect(try object(session, "cancel", other, "--json") as NSDictionary == ["count": 1])
        #expect(try object(session, "cancel", "--match", "plant=fern", "--json") as NSDictionary == ["count": 1])
        #expect(try object(session, "cancel", "--all", "--yes", "--json") as NSDictionary == ["count": 0])

        let log = try array(session, "log", "--json")
        #expect(log.count == 2)
        for event in log {
            #expect(Set(event.keys) == ["time", "timestamp", "id", "event", "title", "detail", "action", "copy"], "\(event)")
            #expect(event["action"] is NSNull && event["copy"] is NSNull)
        }
    }

    /// One style for every command: one JSON document (an array for lists, an object
    /// otherwise), indented two spaces as jq prints it, whether chime or chimed made it.
    @Test(arguments: [["list", "--json"], ["show", "ID", "--json"], ["log", "--json"], ["next", "2030-01-31 09:00", "--json"],
                      ["add", "Other", "--in", "2h", "--json"], ["cancel", "ID", "--json"]])
    func everyJSONOutputIsOneIndentedDocument(arguments: [String]) throws {
        let session = try TestSession()
        let id = try session.add("Plants", "--at", "2030-01-31 08:00", "--user-info", "plant=fern")
        // Something for the log.
        #expect(try session.run(["chime", "cancel", try session.add("Gone", "--in", "1h")]).status == 0)
        let result = try session.run(["chime"] + arguments.map { $0 == "ID" ? id : $0 })
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "[" || lines.first == "{", "\(result.stdout)")
        #expect(lines.last == "" && lines.dropLast().last.map { $0 == "]" || $0 == "}" } == true, "\(result.stdout)")
        // Every key on a line of its own, after two spaces per level, a space after its colon.
        for line in lines where line.contains("\":") {
            #expect(line.prefix { $0 == " " }.count % 2 == 0 && line.contains("\": "), "\(line)")
        }
        #expect(lines.count > 3, "\(result.stdout)")
        _ = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    @Test func nextPrintsTimesAndTimestamps() throws {
        let session = try TestSession()
        let times = try array(session, "next", "2030-01-31", "09:00", "--repeat", "month", "--count", "3", "--json")
        #expect(times.map { $0["time"] as? String } == [
            "2030-01-31T09:00:00+01:00", "2030-02-28T09:00:00+01:00", "2030-03-31T09:00:00+02:00",
        ])
        let parser = ISO8601DateFormatter()
        for time in times {
            let text = try #require(time["time"] as? String)
            let date = try #require(parser.date(from: text))
            #expect(time["timestamp"] as? Int == Int(date.timeIntervalSince1970))
        }
    }

    @Test func badgePrintsTheAppAndCount() throws {
        let session = try TestSession()
        #expect(try object(session, "badge", "--app", "org.example.Todo", "3", "--json") as NSDictionary
            == ["app": "org.example.Todo", "count": 3])
        #expect(try object(session, "badge", "--app", "org.example.Todo", "--json") as NSDictionary
            == ["app": "org.example.Todo", "count": 3])
        #expect(try json(session, "badge", "--app", "org.example.Todo") as? Int == 3)
    }

    @Test func notifyPrintsTheIdAndWithWaitThePressedKey() throws {
        let session = try TestSession()
        let sent = try object(session, "notify", "--json", "Plain")
        #expect(Set(sent.keys) == ["id", "action"])
        #expect(sent["id"] is String && sent["action"] is NSNull)

        let waiting = try session.spawn(["chime", "notify", "--wait", "--json", "-A", "done=Done", "Deploy?"])
        _ = try session.waitForNotifyCalls(2)
        // The mock numbers its notifications from 1: this is its second.
        try session.emitServerSignal("ActionInvoked", signature: "us", arguments: "[<uint32 2>, <'done'>]")
        let result = try waiting.finish()
        #expect(result.status == 0, "\(result)")
        let pressed = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        #expect(pressed["action"] as? String == "done")
        #expect((pressed["id"] as? String)?.count == 8)
    }
}
