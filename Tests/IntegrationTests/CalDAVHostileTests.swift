import DBus
import Foundation
import Glibc
import Testing
import TestSupport

/// chimed against a CalDAV server that lies, floods, stalls and breaks on command
/// (Tests/servers/hostile-caldav.py): each sync that goes wrong is named in one sentence,
/// costs no reminder, keeps chimed's memory bounded and never stops it answering the bus.
///
/// Serialized: the Ping round trips are measured, and two cores shared with other tests'
/// gigabyte answers would measure those instead.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct CalDAVHostileTests {
    // MARK: - The server

    /// One hostile-caldav.py, on a port of its own, its request log read as it grows.
    final class Server {
        let process: Spawned
        let host: String
        let port: Int
        let log: URL

        /// The server's address, without a slash at the end.
        var url: String { "http://\(host):\(port)" }
        /// The collection's URL, as AddCalendar takes it.
        var collection: String { url + "/cal" }

        init(in directory: URL, host: String = "127.0.0.1") throws {
            log = directory.appendingPathComponent("requests-\(host)-\(UUID().uuidString).jsonl")
            let script = packageRoot.appendingPathComponent("Tests/servers/hostile-caldav.py").path
            process = try Spawned(["/usr/bin/python3", "-u", script, "--host", host, "--log", log.path],
                                  environment: ProcessInfo.processInfo.environment)
            guard process.stdout.wait(timeout: 60, until: { $0.contains("\n") }),
                  let port = process.stdout.text.firstMatch(of: /^PORT (\d+)\n/)?.1, let number = Int(port) else {
                throw TestFailure.failed("hostile-caldav.py did not start: \(process.stderr.text)")
            }
            self.host = host
            self.port = number
        }

        deinit { process.stop() }

        /// Sends `command` to /_control; what it answered.
        @discardableResult
        func control(_ command: [String: Any]) throws -> Any {
            let text = String(decoding: try JSONSerialization.data(withJSONObject: command), as: UTF8.self)
            let result = try Spawned(["curl", "-sS", "--fail", "--max-time", "60", "--data-binary", "@-", url + "/_control"],
                                     environment: ProcessInfo.processInfo.environment, stdin: text).finish(timeout: 90)
            guard result.status == 0 else { throw TestFailure.failed("control \(command.keys.sorted()): \(result)") }
            return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8), options: [.fragmentsAllowed])
        }

        /// Stores item `name` (with `alarms` VALARMs more and padding up to `padTo` bytes); its size.
        @discardableResult
        func put(_ name: String, _ text: String, padTo: Int = 0, alarms: Int = 0) throws -> Int {
            let answer = try control(["put": ["name": name, "text": text, "padTo": padTo, "alarms": alarms]])
            return (answer as? [String: Any])?["bytes"] as? Int ?? 0
        }

        func delete(_ name: String) throws { try control(["delete": name]) }

        /// The item's text as the server holds it now.
        func text(of name: String) throws -> String? {
            ((try control(["get": name])) as? [String: Any])?["text"] as? String
        }

        /// Replaces the faults (see the script's header).
        func faults(_ faults: [[String: Any]]) throws { try control(["faults": faults]) }
        func privileges(_ privileges: [String]) throws { try control(["privileges": privileges]) }

        /// One request as the server logged it.
        struct Request {
            let method: String, path: String, kind: String, body: String
            let headers: [String: String]
            let fault: String?
            /// When the server received it, as Unix time.
            let time: Double

            func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
        }

        /// Every request the server has received, in order.
        var requests: [Request] {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
                return Request(method: object["method"] as? String ?? "", path: object["path"] as? String ?? "",
                               kind: object["kind"] as? String ?? "", body: object["body"] as? String ?? "",
                               headers: object["headers"] as? [String: String] ?? [:], fault: object["fault"] as? String,
                               time: object["time"] as? Double ?? 0)
            }
        }

        /// Waits until a request that `matches` has arrived, `count` of them.
        func waitForRequest(_ what: String, count: Int = 1, timeout: TimeInterval = 120, matching matches: (Request) -> Bool) throws {
            try CalDAVSyncTests.waitFor(what, timeout: timeout) { requests.filter(matches).count >= count }
        }
    }

    // MARK: - chimed on the bus

    /// chimed as a client sees it: Pings on a connection of the test's own, and its calendars
    /// as `chime calendar list --json` prints them.
    final class Chimed {
        let connection: Connection
        let session: TestSession
        static let busName = BusName(rawValue: "io.github.chime.Chime")!
        static let path = ObjectPath(rawValue: "/io/github/chime/Chime")!

        init(_ session: TestSession) throws {
            connection = try Connection.bus(address: session.address)
            self.session = session
        }

        /// Seconds one Ping took to be answered.
        func ping() throws -> TimeInterval {
            let message = try Message.methodCall(destination: Self.busName, path: Self.path, interface: try InterfaceName("org.freedesktop.DBus.Peer"),
                                                 member: try MemberName("Ping"))
            let start = Date()
            _ = try connection.call(message, timeoutMilliseconds: 30_000)
            return Date().timeIntervalSince(start)
        }

        /// Pings chimed every 50 ms until `done` holds (asked after each Ping); the round trips.
        func pingUntil(_ what: String, timeout: TimeInterval = 120, _ done: () throws -> Bool) throws -> [TimeInterval] {
            var trips: [TimeInterval] = []
            let deadline = Date(timeIntervalSinceNow: timeout)
            while true {
                let sent = Date()
                trips.append(try ping())
                if try done() { return trips }
                guard Date() < deadline else {
                    throw TestFailure.timeout("\(what), pinging chimed; it logged:\n\(session.daemonLog.suffix(4000))")
                }
                let rest = 0.05 - Date().timeIntervalSince(sent)
                if rest > 0 { Thread.sleep(forTimeInterval: rest) }
            }
        }

        /// What `chime calendar list --json` says of calendar `name` (the keys of Calendars).
        func calendar(_ name: String = "cal") throws -> Described {
            let result = try session.run(["chime", "calendar", "list", "--json"])
            guard result.status == 0, let list = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]],
                  let entries = list.first(where: { $0["name"] as? String == name }) else {
                throw TestFailure.failed("no calendar \(name) in chime calendar list --json: \(result)")
            }
            return Described(state: entries["state"] as? String ?? "", error: entries["error"] as? String,
                             problems: entries["problems"] as? [String] ?? [], queued: entries["queued"] as? Int ?? -1,
                             reminders: entries["reminders"] as? Int ?? -1, writable: entries["writable"] as? Bool)
        }
    }

    /// A calendar as chime calendar list --json describes it.
    struct Described {
        var state: String
        var error: String?
        var problems: [String]
        var queued: Int
        var reminders: Int
        /// Absent until the server has said.
        var writable: Bool?
    }

    /// What the Pings measured, for the report: their count, median and largest round trip.
    static func summary(_ trips: [TimeInterval]) -> String {
        let sorted = trips.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        return String(format: "%d Pings, median %.1f ms, max %.1f ms", trips.count, median * 1000, (sorted.last ?? 0) * 1000)
    }

    /// Every Ping under 100 ms but one at most, and that one under a second: chimed's loop was
    /// never held by what the server sent.
    static func expectPrompt(_ trips: [TimeInterval], _ comment: String) {
        let slow = trips.filter { $0 >= 0.1 }
        print("CalDAVHostileTests: \(comment): \(summary(trips))")
        #expect(trips.count >= 5, "\(comment): too few Pings to tell")
        #expect(slow.count <= 1, "\(comment): \(slow.count) Pings over 100 ms (\(summary(trips)))")
        #expect((trips.max() ?? 0) < 1, "\(comment): a Ping took \(trips.max() ?? 0) s")
    }

    /// chimed's resident memory now and at its peak, in bytes (/proc/PID/status).
    static func memory(of pid: pid_t) throws -> (now: Int, peak: Int) {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func kilobytes(_ field: String) -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
            return (Int(line.split(whereSeparator: \.isWhitespace).dropFirst().first ?? "") ?? 0) * 1024
        }
        return (kilobytes("VmRSS"), kilobytes("VmHWM"))
    }

    // MARK: - Set-up

    /// A task due in an hour (nothing rings during the test) with an alarm then.
    static func task(_ uid: String, _ title: String, due: Date = Date().addingTimeInterval(3600)) -> String {
        CalDAVSyncTests.task(uid, title, due: due)
    }

    /// Follows the server's collection as calendar "cal", syncing every 5 s; what AddCalendar answered.
    @discardableResult
    static func follow(_ session: TestSession, _ server: Server, timeout: TimeInterval = 120) throws -> String {
        let result = try session.run(["gdbus", "call", "--session", "--timeout", "\(Int(timeout))", "--dest", "io.github.chime.Chime",
                                      "--object-path", "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.AddCalendar",
                                      server.collection, "{'user': <'alice'>, 'passwordCommand': <'echo secret'>, 'interval': <uint32 5>}"],
                                     timeout: timeout + 30)
        guard result.status == 0 else { throw TestFailure.failed("AddCalendar: \(result)") }
        return result.stdout
    }

    /// The ids `chime list` shows, in order, duplicates kept.
    static func ids(_ session: TestSession) throws -> [String] {
        try session.listedJSON().compactMap { $0["id"] as? String }
    }

    /// Waits for the next sync of "cal" that ends well, after those logged so far.
    static func nextSync(_ session: TestSession, timeout: TimeInterval = 60) throws {
        let done = session.daemonLog.components(separatedBy: "Calendar cal: synced:").count - 1
        try session.waitForLog("Calendar cal: synced:", times: done + 1, timeout: timeout)
    }

    /// A session following a server that holds `items` (name, text); the server and the ids
    /// the items made.
    static func started(with items: [(String, String)]) throws -> (TestSession, Server, [String]) {
        let session = try TestSession()
        let server = try Server(in: session.directory)
        for (name, text) in items { try server.put(name, text) }
        try follow(session, server)
        let ids = try ids(session)
        guard ids.count == items.count else { throw TestFailure.failed("\(items.count) items made \(ids); log: \(session.daemonLog)") }
        return (session, server, ids)
    }

    // MARK: - Billion laughs

    @Test func aBillionLaughsAnswerFailsTheSyncAndCostsNothing() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk")),
                                                                ("bins.ics", Self.task("bins@test", "Put the bins out"))])
        let chimed = try Chimed(session)
        let pid = try session.daemonPID()
        let start = try Self.memory(of: pid)
        try server.faults([["on": "sync", "do": "laughs"]])
        let trips = try chimed.pingUntil("the refused answer") { session.daemonLog.contains("declares XML entities") }
        Self.expectPrompt(trips, "billion laughs")

        let described = try chimed.calendar()
        #expect(described.state == "offline", "\(described)")
        #expect(described.error == "The server of calendar cal answered sync-collection with the server's answer declares XML entities, "
                + "which Chime does not read.", "\(described)")
        #expect(try Self.ids(session) == before)
        #expect(server.requests.contains { $0.kind == "sync" && $0.fault == "laughs" })
        let end = try Self.memory(of: pid)
        #expect(end.peak - start.now < 32 << 20, "chimed grew from \(start.now >> 20) MiB to a peak of \(end.peak >> 20) MiB")

        // The server mends: synced again, nothing lost, nothing rang.
        try server.faults([])
        try CalDAVSyncTests.waitFor("synced again") { try chimed.calendar().state == "synced" }
        #expect(try chimed.calendar().error == nil)
        #expect(try Self.ids(session) == before)
        #expect(try session.notifyCalls().isEmpty)
    }

    // MARK: - A gigabyte

    /// A gigabyte listing fails the sync at the limit; a gigabyte multiget answer is asked
    /// for again in halves, down to the one item, which GET reads. Memory stays bounded.
    @Test func aGigabyteAnswerIsRefusedAtTheLimitWithMemoryBounded() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk"))])
        let chimed = try Chimed(session)
        let pid = try session.daemonPID()
        let start = try Self.memory(of: pid)
        try server.faults([["on": "sync", "do": "huge", "bytes": 1 << 30, "times": 1],
                           ["on": "multiget", "do": "huge", "bytes": 1 << 30]])
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        let sentence = "Calendar cal: the answer from 127.0.0.1:\(server.port) is larger than 64 MiB."
        var trips = try chimed.pingUntil("the refused gigabyte listing") { session.daemonLog.contains(sentence) }
        let described = try chimed.calendar()
        #expect(described.state == "offline", "\(described)")
        #expect(described.error == sentence, "\(described)")
        #expect(try Self.ids(session) == before)

        // The listing mended, the new item's multiget answer is the gigabyte: given up at the
        // limit, and the item read alone.
        trips += try chimed.pingUntil("tea read by GET") { try Self.ids(session).count == 2 }
        Self.expectPrompt(trips, "1 GiB answers")
        let end = try Self.memory(of: pid)
        print("CalDAVHostileTests: 1 GiB answers: chimed's RSS \(start.now >> 20) MiB before, peak \(end.peak >> 20) MiB")
        #expect(end.peak - start.now < 200 << 20, "chimed grew from \(start.now >> 20) MiB to a peak of \(end.peak >> 20) MiB")
        #expect(server.requests.contains { $0.kind == "multiget" && $0.fault == "huge" })
        #expect(server.requests.filter { $0.method == "GET" }.map(\.path) == ["/cal/tea.ics"])
        #expect(try chimed.calendar().state == "synced")
        #expect(Set(try Self.ids(session)).isSuperset(of: before))
        #expect(try session.notifyCalls().isEmpty)
    }

    // MARK: - A trickle

    /// A byte every two seconds is less than one a second: stalled, by HTTPRequest's default
    /// stall limit of 30 s.
    @Test func aTrickleSlowerThanAByteASecondIsGivenUpAtTheStallLimit() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk"))])
        try Self.expectGivenUp(session, server, before, every: 2, sentence: "127.0.0.1:\(server.port) sent less than 1 byte a second for 30 s.")
    }

    /// A byte every second is not slow enough to count as stalled: the request's own time
    /// limit ends it (120 s; the test knob CHIME_CALDAV_TIMEOUT_SECONDS makes it 10).
    @Test func aTrickleOfAByteASecondIsGivenUpAtTheRequestsTimeLimit() throws {
        let session = try TestSession(extraEnvironment: ["CHIME_CALDAV_TIMEOUT_SECONDS": "10"])
        let server = try Server(in: session.directory)
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        try Self.follow(session, server)
        let before = try Self.ids(session)
        try Self.expectGivenUp(session, server, before, every: 1, sentence: "127.0.0.1:\(server.port) did not answer within 10 s.")
    }

    /// Makes the server answer sync-collection with a byte every `every` seconds, for ever,
    /// and expects chimed to give up with `sentence`, keeping the reminders `before` and
    /// answering Pings meanwhile, and to sync again once the server mends.
    static func expectGivenUp(_ session: TestSession, _ server: Server, _ before: [String], every: Double, sentence: String) throws {
        let chimed = try Chimed(session)
        try server.faults([["on": "sync", "do": "trickle", "every": every]])
        let sentence = "Calendar cal: " + sentence
        let trips = try chimed.pingUntil("the trickling sync given up", timeout: 150) { session.daemonLog.contains(sentence) }
        expectPrompt(trips, "a trickle of a byte every \(every) s")

        let described = try chimed.calendar()
        #expect(described.state == "offline", "\(described)")
        #expect(described.error == sentence, "\(described)")
        #expect(try ids(session) == before)
        #expect(server.requests.contains { $0.kind == "sync" && $0.fault == "trickle" })

        try server.faults([])
        try CalDAVSyncTests.waitFor("synced again") { try chimed.calendar().state == "synced" }
        #expect(try ids(session) == before)
        #expect(try session.notifyCalls().isEmpty)
    }

    // MARK: - Redirects

    @Test func aRedirectToAnotherServerIsNeverFollowed() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk"))])
        let elsewhere = try Server(in: session.directory, host: "127.0.0.2")
        let otherPort = try Server(in: session.directory)
        let chimed = try Chimed(session)
        var trips: [TimeInterval] = []

        for target in [elsewhere, otherPort] {
            try server.faults([["on": "sync", "do": "redirect", "to": target.url]])
            let sentence = "Calendar cal: \(server.collection)/ redirects to \(target.collection)/, another server; use that address instead if you trust it."
            // Two syncs in a row meet it: the user is told once.
            trips += try chimed.pingUntil("the redirect to \(target.url) refused twice") {
                session.daemonLog.components(separatedBy: sentence).count - 1 >= 2
            }
            let described = try chimed.calendar()
            // A redirect waits for the user: the state is the sentence itself.
            #expect(described.state == sentence, "\(described)")
            #expect(described.error == sentence, "\(described)")
            let told = try session.notifyCalls()
            #expect(told.filter { $0.contains(target.url) }.count == 1, "\(told)")
        }
        Self.expectPrompt(trips, "redirects")

        // Nothing reached either server, least of all the password; the calendar's own server had it every time.
        #expect(elsewhere.requests.isEmpty, "\(elsewhere.requests.map(\.path))")
        #expect(otherPort.requests.isEmpty, "\(otherPort.requests.map(\.path))")
        let credentials = "Basic " + Data("alice:secret".utf8).base64EncodedString()
        #expect(server.requests.allSatisfy { $0.header("Authorization") == credentials })
        #expect(server.requests.filter { $0.fault == "redirect" }.count >= 4)
        #expect(try Self.ids(session) == before)

        try server.faults([])
        try CalDAVSyncTests.waitFor("synced again") { try chimed.calendar().state == "synced" }
        #expect(try Self.ids(session) == before)
    }

    // MARK: - Items too large

    @Test func aFiftyMegabyteItemIsNamedAndTheOthersOfItsAnswerAreRead() throws {
        let session = try TestSession()
        let server = try Server(in: session.directory)
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        let size = try server.put("huge.ics", Self.task("huge@test", "Huge"), padTo: 50_000_000)
        #expect(size >= 50_000_000)
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        try Self.follow(session, server)
        let chimed = try Chimed(session)

        #expect(try session.listedTitles().sorted() == ["Buy milk", "Make tea"])
        let described = try chimed.calendar()
        #expect(described.state == "synced", "\(described)")
        #expect(described.problems == ["huge.ics is larger than 1 MiB, so it was not read."], "\(described)")
        // libxml2 reads no text over 10 MB, so the answer holding all three could not be read: asked
        // for again in halves, the huge item alone by GET (refused past 1 MiB), the others by multiget.
        let requests = server.requests
        #expect(requests.filter { $0.method == "GET" }.map(\.path) == ["/cal/huge.ics"], "\(requests.map { "\($0.method) \($0.path)" })")
        let last = try #require(requests.last { $0.kind == "multiget" })
        #expect(last.body.contains("milk.ics") && last.body.contains("tea.ics") && !last.body.contains("huge.ics"), "\(last.body)")
        #expect(try session.notifyCalls().isEmpty)
    }

    @Test func itemsOfThousandsOfAlarmsAreNamedAndTheOthersAreRead() throws {
        let session = try TestSession()
        let server = try Server(in: session.directory)
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        // 100,000 alarms take a few MB: past the 1 MiB of an item before a single alarm is counted.
        let many = try server.put("alarms.ics", Self.task("alarms@test", "Alarms"), alarms: 100_000)
        #expect(many > 1 << 20)
        // 5,000 more than its own fit in 1 MiB, and ask for ten times the reminders an item may make.
        let some = try server.put("some.ics", Self.task("some@test", "Some alarms"), alarms: 5_000)
        #expect(some < 1 << 20)
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        try Self.follow(session, server)
        let chimed = try Chimed(session)

        #expect(try session.listedTitles().sorted() == ["Buy milk", "Make tea"])
        let described = try chimed.calendar()
        #expect(described.state == "synced", "\(described)")
        #expect(described.problems.count == 2, "\(described)")
        #expect(described.problems.contains("alarms.ics is larger than 1 MiB, so it was not read."), "\(described)")
        #expect(described.problems.contains {
            $0.hasPrefix("some.ics: ") && $0.contains("it asks for 5001 reminders (5001 alarms, 0 RDATEs); Chime takes at most 500 of one item")
        }, "\(described)")
        #expect(try session.notifyCalls().isEmpty)
    }

    // MARK: - A write refused with 412

    @Test func aPutRefusedWith412IsPatchedAgainOverTheServersChange() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk"))])
        // Another device changes the item just before chimed's PUT arrives.
        try server.faults([["on": "put", "do": "edit", "times": 1, "summary": "Buy oat milk", "add": "DESCRIPTION:from the phone"]])
        let id = try #require(before.first)
        #expect(try session.run(["chime", "act", id, "complete"]).status == 0)
        try CalDAVSyncTests.waitFor("COMPLETED on the server") { try server.text(of: "milk.ics")?.contains("STATUS:COMPLETED") == true }

        let stored = try #require(try server.text(of: "milk.ics"))
        #expect(stored.contains("SUMMARY:Buy oat milk") && stored.contains("DESCRIPTION:from the phone"), "\(stored)")
        #expect(stored.contains("STATUS:COMPLETED") && stored.contains("PERCENT-COMPLETE:100"), "\(stored)")
        #expect(!stored.contains("SUMMARY:Buy milk"), "\(stored)")
        let writes = server.requests.filter { $0.path == "/cal/milk.ics" && ["GET", "PUT"].contains($0.method) }
        #expect(writes.map(\.method) == ["GET", "PUT", "GET", "PUT"], "\(writes.map { "\($0.method) \($0.fault ?? "")" })")
        #expect(writes.first { $0.method == "PUT" }?.fault == "edit")
        // The second PUT names the ETag the edit made: it is the patch of the server's text.
        #expect(writes.last?.header("If-Match") != writes[1].header("If-Match"))
        try session.waitForLog("milk.ics changed on the server while it was written; reading it again.")
        try CalDAVSyncTests.waitFor("nothing queued") { try Chimed(session).calendar().queued == 0 }
        #expect(try session.notifyCalls().isEmpty)
    }

    // MARK: - Server errors and slow answers

    @Test func serverErrorsKeepEverythingAndAPressMadeMeanwhileIsSentOnce() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk")),
                                                                ("bins.ics", Self.task("bins@test", "Put the bins out"))])
        let chimed = try Chimed(session)
        try server.faults([["on": "any", "do": "status", "status": 500, "times": 3],
                           ["on": "any", "do": "status", "status": 503, "times": 3, "headers": ["Retry-After": "1"]]])
        var trips = try chimed.pingUntil("a 500") { session.daemonLog.contains("answered REPORT with HTTP 500.") }
        var described = try chimed.calendar()
        #expect(described.state == "offline", "\(described)")
        #expect(described.error == "The server of calendar cal answered REPORT with HTTP 500.", "\(described)")
        #expect(try Self.ids(session) == before)

        // Complete pressed while the server fails: queued, and sent once it answers.
        let milk = try #require(try session.listedJSON().first { $0["title"] as? String == "Buy milk" }?["id"] as? String)
        #expect(try session.run(["chime", "act", milk, "complete"]).status == 0)
        trips += try chimed.pingUntil("a 503") { session.daemonLog.contains("answered GET with HTTP 503 (it asks to wait 1 s).") }
        described = try chimed.calendar()
        #expect(described.queued == 1, "\(described)")
        #expect(described.error == "The server of calendar cal answered GET with HTTP 503 (it asks to wait 1 s).", "\(described)")
        Self.expectPrompt(trips, "500 and 503 answers")

        try CalDAVSyncTests.waitFor("COMPLETED on the server", timeout: 120) {
            try server.text(of: "milk.ics")?.contains("STATUS:COMPLETED") == true
        }
        try CalDAVSyncTests.waitFor("synced, nothing queued") {
            let now = try chimed.calendar()
            return now.state == "synced" && now.queued == 0
        }
        let puts = server.requests.filter { $0.method == "PUT" }
        #expect(puts.count == 1 && puts.first?.path == "/cal/milk.ics", "\(puts.map(\.path))")
        #expect(server.requests.filter { $0.fault == "status" }.count == 6)
        // The bins stay; the milk, completed, rings no more.
        try CalDAVSyncTests.waitFor("the completed milk gone") { try Self.ids(session).count == 1 }
        #expect(try Self.ids(session) == before.filter { $0 != milk })
        #expect(try session.notifyCalls().isEmpty)
    }

    @Test func aServerTakingFiveSecondsAnAnswerStillSyncs() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk"))])
        let chimed = try Chimed(session)
        try server.faults([["on": "any", "do": "slow", "seconds": 5]])
        let read = "Calendar cal: synced: 1 new"
        let readBefore = session.daemonLog.components(separatedBy: read).count
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        // A sync-collection and a multiget, five seconds each: well within the 120 s a request is given.
        let trips = try chimed.pingUntil("tea read from the slow server", timeout: 120) {
            session.daemonLog.components(separatedBy: read).count > readBefore
        }
        Self.expectPrompt(trips, "answers taking 5 s")
        #expect(try Self.ids(session).count == 2)
        #expect(Set(try Self.ids(session)).isSuperset(of: before))
        let described = try chimed.calendar()
        #expect(described.state == "synced" && described.error == nil, "\(described)")
        #expect(server.requests.contains { $0.kind == "multiget" && $0.fault == "slow" })
    }

    /// RFC 9110 10.2.3: a 503 with Retry-After holds the next sync back that long, longer
    /// than the 10 s back-off would; then syncing goes on.
    @Test func aServerAskingToWaitIsLeftAloneThatLong() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk"))])
        let chimed = try Chimed(session)
        try server.faults([["on": "sync", "do": "status", "status": 503, "times": 1, "headers": ["Retry-After": "25"]]])
        try session.waitForLog("answered REPORT with HTTP 503 (it asks to wait 25 s).")
        #expect(try chimed.calendar().state == "offline")
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        try CalDAVSyncTests.waitFor("tea read after the wait", timeout: 120) { try Self.ids(session).count == 2 }
        let requests = server.requests
        let refused = try #require(requests.firstIndex { $0.fault == "status" })
        let next = try #require(requests[(refused + 1)...].first)
        #expect(next.time - requests[refused].time >= 24.5, "asked again after \(next.time - requests[refused].time) s")
        #expect(Set(try Self.ids(session)).isSuperset(of: before))
        #expect(try chimed.calendar().state == "synced")
    }

    // MARK: - A full disk

    /// A sync whose transaction cannot be stored (the disk is full) changes nothing, not
    /// even the sync token: the next sync once there is room reads the same changes again,
    /// and a chimed started anew has each item once.
    @Test func aSyncOnAFullDiskStoresNothingAndTheNextWithRoomReadsItAll() throws {
        let session = try TestSession()
        let disk = try SmallDisk(over: session.dataDirectory, size: "4m")
        let daemon = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        let server = try Server(in: session.directory)
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        try Self.follow(session, server)
        let chimed = try Chimed(session)
        let before = try Self.ids(session)
        #expect(before.count == 1)

        try disk.fill()
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        try server.delete("milk.ics")
        let sentence = "Calendar cal was read but not stored: the disk holding \(session.dataDirectory.path) is full."
        let trips = try chimed.pingUntil("the sync refused by the full disk") { try chimed.calendar().error == sentence }
        Self.expectPrompt(trips, "a full disk")
        #expect(try chimed.calendar().state == "offline")
        #expect(try Self.ids(session) == before, "nothing half done")

        try disk.free()
        try CalDAVSyncTests.waitFor("the changes read once there is room") { try session.listedTitles() == ["Make tea"] }
        #expect(try chimed.calendar().state == "synced")
        let after = try Self.ids(session)
        try session.stopDaemon()
        _ = try daemon.finish()
        let next = try session.spawnDaemon(after: disk.prefix)
        try session.waitForName("io.github.chime.Chime")
        let synced = try session.run(["chime", "calendar", "sync", "cal"])
        #expect(synced.status == 0 && synced.stdout.contains("cal: 0 new, 0 updated, 0 removed"), "\(synced)")
        #expect(try Self.ids(session) == after)
        try session.stopDaemon()
        _ = try next.finish()
    }

    // MARK: - A calendar the user may only read

    /// A collection whose privileges are read only: chime calendar list and chime doctor say
    /// so, and a press (refused by the server with 403) keeps its effect here and is named.
    @Test func aReadOnlyCalendarIsSaidSoAndAPressStaysHere() throws {
        let session = try TestSession()
        let server = try Server(in: session.directory)
        try server.privileges(["read", "read-current-user-privilege-set"])
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        try Self.follow(session, server)
        let chimed = try Chimed(session)
        #expect(try chimed.calendar().writable == false)
        let list = try session.run(["chime", "calendar", "list"])
        #expect(list.status == 0 && list.stdout.contains("read-only"), "\(list)")
        let doctor = try session.run(["chime", "doctor"])
        #expect(doctor.stdout.contains("Calendar cal is read-only for alice on the server: what you press on its reminders stays on this machine."),
                "\(doctor)")

        let milk = try #require(try Self.ids(session).first)
        #expect(try session.run(["chime", "act", milk, "complete"]).status == 0)
        try server.waitForRequest("the PUT") { $0.method == "PUT" }
        try CalDAVSyncTests.waitFor("the refusal named") {
            try chimed.calendar().problems.contains { $0.contains("the server does not let alice change it (HTTP 403)") }
        }
        #expect(try Self.ids(session).isEmpty, "completed here")
        #expect(try server.text(of: "milk.ics")?.contains("STATUS:COMPLETED") == false)
        #expect(try chimed.calendar().queued == 0, "a refused press is not sent again")

        // Writable from the start: the key says so.
        let other = try TestSession()
        let open = try Server(in: other.directory)
        try open.privileges(["read", "write"])
        try Self.follow(other, open)
        #expect(try Chimed(other).calendar().writable == true)
    }

    // MARK: - Malformed iCalendar

    @Test func malformedItemsAreNamedAndAnItemThatBreaksKeepsItsReminder() throws {
        let session = try TestSession()
        let server = try Server(in: session.directory)
        let tea = Self.task("tea@test", "Make tea")
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        try server.put("tea.ics", tea)
        try server.put("junk.ics", "This is not a calendar at all.\r\n")
        let cut = Self.task("cut@test", "Cut short")
        let end = try #require(cut.range(of: "END:VTODO"))
        try server.put("cut.ics", String(cut[..<end.lowerBound]))
        try Self.follow(session, server)
        let chimed = try Chimed(session)

        #expect(try session.listedTitles().sorted() == ["Buy milk", "Make tea"])
        var described = try chimed.calendar()
        #expect(described.state == "synced", "\(described)")
        #expect(described.problems.count == 2, "\(described)")
        #expect(described.problems.contains { $0.hasPrefix("junk.ics is not iCalendar") }, "\(described)")
        #expect(described.problems.contains { $0.hasPrefix("cut.ics is not iCalendar") }, "\(described)")
        let before = try Self.ids(session)

        // Tea, read well before, comes back cut short: named, and its reminder stays.
        try server.put("tea.ics", String(tea.prefix(tea.count / 2)))
        try session.waitForLog("3 with problems")
        described = try chimed.calendar()
        #expect(described.problems.contains { $0.hasPrefix("tea.ics is not iCalendar") }, "\(described)")
        #expect(try Self.ids(session) == before)
        #expect(try session.listedTitles().sorted() == ["Buy milk", "Make tea"])
        #expect(try session.notifyCalls().isEmpty)
    }

    // MARK: - An emptied collection

    @Test func anEmptiedCollectionIsBelievedOnlyWhenALaterSyncAgrees() throws {
        let (session, server, _) = try Self.started(with: [
            ("milk.ics", Self.task("milk@test", "Buy milk")),
            ("standup.ics", CalDAVSyncTests.event("standup@test", "Standup", start: Date().addingTimeInterval(8))),
        ])
        let chimed = try Chimed(session)
        try CalDAVSyncTests.waitFor("the standup rang") { try session.notifyCalls().contains { $0.contains("Standup") } }
        let before = try Self.ids(session)
        #expect(try session.listedTitles() == ["Buy milk"])

        // A bad moment: one sync sees no item at all, the next sees them all again.
        try server.faults([["on": "sync", "do": "empty", "times": 1]])
        try session.waitForLog("the server lists no items where 2 were; kept until a later sync says the same.")
        #expect(try Self.ids(session) == before)
        try Self.nextSync(session)
        try Self.nextSync(session)
        #expect(try Self.ids(session) == before)
        #expect(try chimed.calendar().reminders == 1)
        #expect(!session.daemonLog.contains("taken as removed"))
        #expect(server.requests.contains { $0.fault == "empty" })

        // The items really go: kept at the first sync that sees none, gone at the next, an interval later.
        try server.delete("milk.ics")
        try server.delete("standup.ics")
        try session.waitForLog("kept until a later sync says the same.", times: 2)
        let kept = Date()
        #expect(try Self.ids(session) == before)
        try session.waitForLog("Calendar cal: the collection is still empty; its 2 items are taken as removed.")
        #expect(Date().timeIntervalSince(kept) >= 3)
        try CalDAVSyncTests.waitFor("the reminders gone") { try Self.ids(session).isEmpty }
        // The standup rang once, whatever the syncs said meanwhile.
        #expect(try session.notifyCalls().filter { $0.contains("Standup") }.count == 1)
    }

    // MARK: - Sync tokens

    /// DAViCal answers a token it does not know with every item and no deletion: a sync with
    /// a token cannot see an item deleted then, and every twelfth sync, which lists the whole
    /// collection, does.
    @Test func aServerThatForgetsTokensHasItsDeletionsSeenByTheWholeListing() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk")),
                                                                ("bins.ics", Self.task("bins@test", "Put the bins out"))])
        let milk = try #require(try session.listedJSON().first { $0["title"] as? String == "Buy milk" }?["id"] as? String)
        #expect(before.contains(milk))
        try server.faults([["on": "sync", "do": "forget"]])
        try server.delete("bins.ics")
        let deleted = server.requests.count
        try CalDAVSyncTests.waitFor("the deleted bins gone", timeout: 180) { try session.listedTitles() == ["Buy milk"] }
        let since = server.requests[deleted...]
        // Forgotten tokens answered meanwhile, every item and no deletion; the whole listing
        // (a sync-collection without a token) saw it.
        #expect(since.contains { $0.kind == "sync" && $0.fault == "forget" })
        let whole = try #require(since.firstIndex { $0.kind == "sync" && $0.fault == nil && $0.body.contains("<d:sync-token/>") })
        #expect(!since[..<whole].contains { $0.kind == "multiget" }, "an unchanged item is not fetched again")
        #expect(try Self.ids(session) == [milk])
        #expect(try session.notifyCalls().isEmpty)
    }

    @Test func anInvalidSyncTokenReadsEveryETagAgainWithoutDuplicates() throws {
        let (session, server, before) = try Self.started(with: [("milk.ics", Self.task("milk@test", "Buy milk")),
                                                                ("bins.ics", Self.task("bins@test", "Put the bins out"))])
        try server.faults([["on": "sync", "do": "token", "times": 1]])
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        try session.waitForLog("the server no longer knows the sync token; reading every item's ETag.")
        try CalDAVSyncTests.waitFor("tea read") { try Self.ids(session).count == 3 }

        let ids = try Self.ids(session)
        #expect(Set(ids).count == 3 && Set(ids).isSuperset(of: before))
        #expect(try session.listedTitles().sorted() == ["Buy milk", "Make tea", "Put the bins out"])
        // After the refused token, a sync-collection without one listed every ETag, and only tea was fetched.
        let requests = server.requests
        let refused = try #require(requests.lastIndex { $0.fault == "token" })
        let again = try #require(requests[(refused + 1)...].first { $0.kind == "sync" })
        #expect(!again.body.contains("hostile.invalid"), "\(again.body)")
        let fetched = requests[(refused + 1)...].filter { $0.kind == "multiget" }
        #expect(fetched.count == 1 && fetched.allSatisfy { $0.body.contains("tea.ics") && !$0.body.contains("milk.ics") },
                "\(fetched.map(\.body))")
        try Self.nextSync(session)
        #expect(try Self.ids(session) == ids)
        #expect(try session.notifyCalls().isEmpty)
    }

    @Test(arguments: [501, 400])
    func aServerWithoutSyncCollectionIsSyncedByItsETags(status: Int) throws {
        let session = try TestSession()
        let server = try Server(in: session.directory)
        try server.faults([["on": "sync", "do": "status", "status": status]])
        try server.put("milk.ics", Self.task("milk@test", "Buy milk"))
        try server.put("bins.ics", Self.task("bins@test", "Put the bins out"))
        try Self.follow(session, server)
        let chimed = try Chimed(session)
        try session.waitForLog("sync-collection answered HTTP \(status); reading every item's ETag instead.")
        #expect(try session.listedTitles().sorted() == ["Buy milk", "Put the bins out"])
        #expect(try chimed.calendar().state == "synced")

        // Changes are found by their ETags.
        try server.put("milk.ics", Self.task("milk@test", "Buy oat milk"))
        try server.put("tea.ics", Self.task("tea@test", "Make tea"))
        try server.delete("bins.ics")
        try CalDAVSyncTests.waitFor("the changes read") { try session.listedTitles().sorted() == ["Buy oat milk", "Make tea"] }
        // Asked once: a server without RFC 6578 is not asked again.
        #expect(server.requests.filter { $0.kind == "sync" }.count == 1)
        #expect(server.requests.filter { $0.method == "PROPFIND" }.count >= 2)
        #expect(try session.notifyCalls().isEmpty)
    }
}
