import Foundation
import Testing
import TestSupport

/// chimed following folders that the real calendar clients write: todoman's tasks, khal's
/// events, and what vdirsyncer brings from a CalDAV server (Radicale on 127.0.0.1). Each
/// client runs as its own process with its own config in the test's folder, never the
/// user's, and every wait ends on what chimed lists or the server receives.
@Suite(.timeLimit(.minutes(10)))
struct CalendarClientTests {
    let folders = CalendarFolderTests()

    /// What every client of `session` runs with: a home of its own in the test's folder, so
    /// that `~` in a config, a client's cache and vdirsyncer's status stay there, and the
    /// built `chime` first on PATH.
    static func environment(_ session: TestSession) -> [String: String] {
        var environment = session.environment
        environment["HOME"] = session.directory.appendingPathComponent("home").path
        environment["XDG_CACHE_HOME"] = session.directory.appendingPathComponent("home/.cache").path
        environment["PATH"] = binDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment
    }

    /// Runs a client to completion and fails with its output when it fails.
    @discardableResult
    static func run(_ arguments: [String], in session: TestSession, extra: [String: String] = [:], stdin: String? = nil) throws -> ProcessResult {
        let result = try Spawned(arguments, environment: environment(session).merging(extra) { $1 }, stdin: stdin).finish()
        guard result.status == 0 else { throw TestFailure.failed("\(arguments.joined(separator: " ")): \(result)") }
        return result
    }

    /// Asks `condition` again every 50 ms until it holds: chimed says nothing on the bus when
    /// it has read a change, so what `chime list` shows is what the test waits on.
    static func waitUntil(_ what: String, timeout: TimeInterval = 60, _ condition: () throws -> Bool) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while try !condition() {
            guard Date() < deadline else { throw TestFailure.timeout(what) }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// The reminder `chime list --json` lists under `title`.
    static func listed(_ session: TestSession, _ title: String) throws -> [String: Any]? {
        try session.listedJSON().first { $0["title"] as? String == title }
    }

    // MARK: - todoman

    /// todoman's config for one list folder, with seconds in its times so that a task can be
    /// due a few seconds from now.
    static func todoman(_ session: TestSession, lists: URL) throws -> [String: String] {
        let config = session.directory.appendingPathComponent("todoman.py")
        try """
            path = "\(lists.path)/*"
            date_format = "%Y-%m-%d"
            time_format = "%H:%M:%S"
            default_list = "tasks"
            """.write(to: config, atomically: true, encoding: .utf8)
        return ["TODOMAN_CONFIG": config.path]
    }

    /// todoman's number for the task with `summary` (its own ids, kept in its cache).
    static func todomanID(_ session: TestSession, _ config: [String: String], _ summary: String) throws -> String {
        let listed = try run(["todoman", "--porcelain", "list", "--status", "ANY"], in: session, extra: config).stdout
        let tasks = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]] ?? []
        guard let id = tasks.first(where: { $0["summary"] as? String == summary })?["id"] as? Int else {
            throw TestFailure.failed("todoman lists no '\(summary)': \(listed)")
        }
        return String(id)
    }

    @Test func todomanTasksAreFollowedAsTheyAreAddedEditedDoneAndDeleted() throws {
        let session = try TestSession()
        let folder = try folders.folder(session, "tasks")
        let config = try Self.todoman(session, lists: folder.deletingLastPathComponent())
        try Self.run(["todoman", "new", "--due", "2030-12-02 18:00:00", "Pay the rent"], in: session, extra: config)

        let add = try session.run(["chime", "calendar", "add", "--vdir", folder.path])
        #expect(add.status == 0 && add.stdout == "Following tasks (\(folder.path)): 1 reminder to come.\n", "\(add)")
        let rent = try #require(try Self.listed(session, "Pay the rent"))
        #expect(rent["nextFireLocal"] as? String == "2030-12-02T18:00:00+01:00", "\(rent)")
        let rentID = try #require(rent["id"] as? String)

        // Added and edited while followed.
        try Self.run(["todoman", "new", "--due", "2030-12-03 09:00:00", "Call the bank"], in: session, extra: config)
        try folders.waitForTitles(session, ["Pay the rent", "Call the bank"])
        try Self.run(["todoman", "edit", try Self.todomanID(session, config, "Pay the rent"), "--due", "2030-12-05 18:30:00"],
                     in: session, extra: config)
        try Self.waitUntil("the rent due on 5 December in chime list") {
            try Self.listed(session, "Pay the rent")?["nextFireLocal"] as? String == "2030-12-05T18:30:00+01:00"
        }
        #expect(try Self.listed(session, "Pay the rent")?["id"] as? String == rentID)

        // Done, a task rings nothing; deleted, it is gone.
        try Self.run(["todoman", "done", try Self.todomanID(session, config, "Call the bank")], in: session, extra: config)
        try folders.waitForTitles(session, ["Pay the rent"])
        try Self.run(["todoman", "delete", "--yes", try Self.todomanID(session, config, "Pay the rent")], in: session, extra: config)
        try folders.waitForTitles(session, [])

        // A task due in a few seconds rings at its time.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: session.timeZone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        try Self.run(["todoman", "new", "--due", formatter.string(from: Date(timeIntervalSinceNow: 8)), "Take the cake out"],
                     in: session, extra: config)
        try folders.waitForTitles(session, ["Take the cake out"])
        let cake = try #require(try Self.listed(session, "Take the cake out")?["id"] as? String)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.count == 1 && calls[0].contains("<'Take the cake out'>"), "\(calls)")

        // Complete on the popup is written into the task, where todoman reads it as done.
        #expect(try session.run(["chime", "act", cake, "complete"]).status == 0)
        try Self.waitUntil("todoman listing the cake as completed") {
            let listed = try Self.run(["todoman", "--porcelain", "list", "--status", "COMPLETED"], in: session, extra: config).stdout
            let tasks = try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [[String: Any]] ?? []
            return tasks.contains { $0["summary"] as? String == "Take the cake out" && $0["completed"] as? Bool == true }
        }
    }

    // MARK: - khal

    /// khal's config for one calendar folder, with ISO dates (its defaults follow the locale).
    static func khal(_ session: TestSession, calendar: URL) throws -> [String] {
        let config = session.directory.appendingPathComponent("khal.conf")
        try """
            [calendars]
            [[personal]]
            path = \(calendar.path)
            [default]
            default_calendar = personal
            [locale]
            timeformat = %H:%M
            dateformat = %Y-%m-%d
            longdateformat = %Y-%m-%d
            datetimeformat = %Y-%m-%d %H:%M
            longdatetimeformat = %Y-%m-%d %H:%M
            [sqlite]
            path = \(session.directory.appendingPathComponent("khal.db").path)
            """.write(to: config, atomically: true, encoding: .utf8)
        return ["khal", "-c", config.path]
    }

    @Test func khalEventsAreFollowedAndAMovedEventKeepsItsReminder() throws {
        let session = try TestSession()
        let folder = try folders.folder(session, "personal")
        let khal = try Self.khal(session, calendar: folder)
        try Self.run(khal + ["new", "--alarms", "15m", "2030-12-01", "10:00", "1h", "Dentist"], in: session)
        #expect(try session.run(["chime", "calendar", "add", "--vdir", folder.path]).status == 0)
        let dentist = try #require(try Self.listed(session, "Dentist"))
        #expect(dentist["nextFireLocal"] as? String == "2030-12-01T09:45:00+01:00", "\(dentist)")

        // khal edit asks what to change on its standard input: the times, then the title.
        try Self.run(khal + ["edit", "Dentist"], in: session, stdin: "t\n2030-12-02 11:00 2030-12-02 12:00\ns\nDentist, moved\nn\n")
        try folders.waitForTitles(session, ["Dentist, moved"])
        let moved = try #require(try Self.listed(session, "Dentist, moved"))
        #expect(moved["id"] as? String == dentist["id"] as? String, "\(moved)")
        #expect(moved["nextFireLocal"] as? String == "2030-12-02T10:45:00+01:00", "\(moved)")

        // A weekly event, added while followed, rings ahead of its next occurrence.
        try Self.run(khal + ["new", "--repeat", "weekly", "--alarms", "5m", "2030-12-03", "09:00", "30m", "Standup"], in: session)
        try folders.waitForTitles(session, ["Dentist, moved", "Standup"])
        #expect(try Self.listed(session, "Standup")?["nextFireLocal"] as? String == "2030-12-03T08:55:00+01:00")

        try Self.run(khal + ["edit", "Dentist"], in: session, stdin: "D\ny\n")
        try folders.waitForTitles(session, ["Standup"])
    }

    // MARK: - A CalDAV server, through vdirsyncer

    /// Radicale on 127.0.0.1, on a port it picks (or `port`), with one user whose password is
    /// stored in plain text; its storage is in `directory`. With `tls`, it serves https with
    /// that certificate and key. Stopped when the test drops it; ``stop()`` and ``start()``
    /// take it down and up again on the same port, as a server that goes away and comes back.
    final class Radicale {
        private(set) var process: Spawned
        let url: String
        let user: String, password: String
        let port: Int
        /// The certificate curl trusts, when it serves https.
        let certificate: URL?
        /// The folder of its collections: `storage/collection-root/USER/NAME/`.
        let storage: URL
        private let arguments: [String]

        init(directory: URL, user: String, password: String, port: Int = 0, tls: (certificate: URL, key: URL)? = nil) throws {
            self.user = user
            self.password = password
            certificate = tls?.certificate
            storage = directory.appendingPathComponent("storage")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let users = directory.appendingPathComponent("users")
            try "\(user):\(password)\n".write(to: users, atomically: true, encoding: .utf8)
            // --config "" leaves out Debian's /etc/radicale/config (TLS and remote_user auth);
            // port 0 lets the kernel choose, and the log says which.
            var arguments = ["/usr/bin/python3", "-m", "radicale", "--config", "", "--logging-level", "info",
                             "--auth-type", "htpasswd", "--auth-htpasswd-filename", users.path, "--auth-htpasswd-encryption", "plain",
                             "--storage-filesystem-folder", storage.path]
            if let tls { arguments += ["--ssl", "--certificate", tls.certificate.path, "--key", tls.key.path] }
            self.arguments = arguments
            process = try Self.spawn(arguments, port: port)
            guard let chosen = process.stderr.text.firstMatch(of: /Listening on '\[127\.0\.0\.1\]:(\d+)'/).flatMap({ Int($0.1) }) else {
                throw TestFailure.failed("Radicale names no port: \(process.stderr.text)")
            }
            self.port = chosen
            url = "\(tls == nil ? "http" : "https")://127.0.0.1:\(chosen)/"
        }

        private static func spawn(_ arguments: [String], port: Int) throws -> Spawned {
            let process = try Spawned(arguments + ["--server-hosts", "127.0.0.1:\(port)"], environment: ProcessInfo.processInfo.environment)
            guard process.stderr.wait(timeout: 60, until: { $0.contains("Radicale server ready") }) else {
                throw TestFailure.failed("Radicale did not start: \(process.stderr.text)")
            }
            return process
        }

        /// Kills it (SIGKILL, as a crash or a pulled cable: no goodbye to a client mid-request).
        func stop() { process.stop() }

        /// Starts it again on the same port and storage.
        func start() throws {
            process.stop()
            process = try Self.spawn(arguments, port: port)
        }

        /// What curl needs to trust the server.
        private var trust: [String] { certificate.map { ["--cacert", $0.path] } ?? [] }

        deinit { process.stop() }

        /// The body of `path`, fetched as the user.
        func get(_ path: String) throws -> String {
            let result = try Spawned(["curl", "--silent", "--fail", "--user", "\(user):\(password)"] + trust + [url + path],
                                     environment: ProcessInfo.processInfo.environment).finish()
            guard result.status == 0 else { throw TestFailure.failed("curl GET \(path): \(result)") }
            return result.stdout
        }

        /// Sends one request as the user, as another device would, and answers the HTTP status.
        @discardableResult
        func request(_ method: String, _ path: String, body: String? = nil) throws -> Int {
            var arguments = ["curl", "--silent", "--output", "/dev/null", "--write-out", "%{http_code}", "--user", "\(user):\(password)",
                             "--request", method, url + path] + trust
            if body != nil { arguments += ["--header", "Content-Type: text/calendar", "--data-binary", "@-"] }
            let result = try Spawned(arguments, environment: ProcessInfo.processInfo.environment, stdin: body).finish()
            guard result.status == 0, let status = Int(result.stdout) else { throw TestFailure.failed("curl \(method) \(path): \(result)") }
            return status
        }
    }

    @Test func eventsOnACalDAVServerReachChimedThroughVdirsyncer() throws {
        let session = try TestSession()
        let server = try Radicale(directory: session.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        #expect(try server.request("MKCALENDAR", "alice/personal/") == 201)
        #expect(try server.request("PUT", "alice/personal/dentist.ics", body: CalendarFolderTests.event("dentist@example.org", "Dentist")) == 201)
        #expect(try server.request("PUT", "alice/personal/barber.ics", body: CalendarFolderTests.event("barber@example.org", "Barber")) == 201)

        let local = session.directory.appendingPathComponent("calendars")
        let config = session.directory.appendingPathComponent("vdirsyncer.conf")
        try """
            [general]
            status_path = "\(session.directory.appendingPathComponent("vdirsyncer-status").path)/"

            [pair personal]
            a = "personal_local"
            b = "personal_remote"
            collections = ["from b"]

            [storage personal_local]
            type = "filesystem"
            path = "\(local.path)/"
            fileext = ".ics"

            [storage personal_remote]
            type = "caldav"
            url = "\(server.url)"
            username = "alice"
            password = "secret"
            """.write(to: config, atomically: true, encoding: .utf8)
        let vdirsyncer = ["vdirsyncer", "-c", config.path]
        // discover asks whether to make the local folder of each collection it found.
        try Self.run(vdirsyncer + ["discover"], in: session, stdin: "y\n")
        try Self.run(vdirsyncer + ["sync"], in: session)

        let folder = local.appendingPathComponent("personal")
        let add = try session.run(["chime", "calendar", "add", "--vdir", folder.path])
        #expect(add.stdout == "Following personal (\(folder.path)): 2 reminders to come.\n", "\(add)")
        let dentist = try #require(try Self.listed(session, "Dentist"))
        #expect(dentist["nextFireLocal"] as? String == "2030-12-01T10:45:00+01:00", "\(dentist)")

        // Moved on the server, then deleted there: each sync brings the change. (Radicale 3.1.8
        // answers a PUT that replaces with 201, as one that creates; it reads an unescaped comma
        // in a SUMMARY as a list and keeps the first part, so the new title has none.)
        #expect(try server.request("PUT", "alice/personal/dentist.ics",
                                   body: CalendarFolderTests.event("dentist@example.org", "Dentist moved", start: "20301202T100000Z")) == 201)
        try Self.run(vdirsyncer + ["sync"], in: session)
        try folders.waitForTitles(session, ["Dentist moved", "Barber"])
        let moved = try #require(try Self.listed(session, "Dentist moved"))
        #expect(moved["id"] as? String == dentist["id"] as? String && moved["nextFireLocal"] as? String == "2030-12-02T10:45:00+01:00", "\(moved)")
        #expect(try server.request("DELETE", "alice/personal/dentist.ics") == 200)
        try Self.run(vdirsyncer + ["sync"], in: session)
        try folders.waitForTitles(session, ["Barber"])
        try session.waitForLog("Calendar personal: read 1 files: 0 new, 0 updated, 1 removed")

        // A task due in a few seconds, made on the server: it rings here, and Complete pressed
        // here reaches the server with the next sync, where every other device reads it.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let task = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//phone//EN", "BEGIN:VTODO", "UID:milk@example.org",
                    "DTSTAMP:20261101T100000Z", "SUMMARY:Buy milk", "DUE:" + formatter.string(from: Date(timeIntervalSinceNow: 6)),
                    "STATUS:NEEDS-ACTION", "END:VTODO", "END:VCALENDAR", ""].joined(separator: "\r\n")
        #expect(try server.request("PUT", "alice/personal/milk.ics", body: task) == 201)
        try Self.run(vdirsyncer + ["sync"], in: session)
        try folders.waitForTitles(session, ["Barber", "Buy milk"])
        let milk = try #require(try Self.listed(session, "Buy milk")?["id"] as? String)
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.first?.contains("<'Buy milk'>") == true, "\(calls)")
        #expect(try session.run(["chime", "act", milk, "complete"]).status == 0)
        try Self.waitUntil("the completed task synced back to Radicale") {
            try Self.run(vdirsyncer + ["sync"], in: session)
            return try server.get("alice/personal/milk.ics").contains("STATUS:COMPLETED")
        }
        let stored = try server.get("alice/personal/milk.ics")
        #expect(stored.contains("PERCENT-COMPLETE:100") && stored.contains("COMPLETED:"), "\(stored)")
        #expect(try session.run(["chime", "list"]).stdout.contains("Buy milk") == false)
    }

    // MARK: - The set-up the manual shows

    static let setUpPage = "docs/calendars.md"
    static let setUpHeading = "## Following a calendar folder: vdirsyncer, khal and todoman"

    /// One fenced block of a page: its language, its lines, and the paragraph before it.
    struct Block {
        let language: String
        let lines: [String]
        let paragraph: String
    }

    /// The fenced blocks of `page`, or of its section under `heading` only.
    static func blocks(in page: String, under heading: String? = nil) throws -> [Block] {
        var lines = try String(contentsOf: packageRoot.appendingPathComponent(page), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let heading {
            guard let start = lines.firstIndex(of: heading) else { throw TestFailure.failed("\(page) has no '\(heading)'") }
            lines = Array(lines[(start + 1)...])
            lines = Array(lines.prefix { !$0.hasPrefix("## ") })
        }
        var blocks: [Block] = []
        // The paragraph being read, and the last one finished: a blank line may stand between
        // a paragraph and its block.
        var paragraph: [String] = [], last: [String] = [], block: [String] = [], language: String?
        for line in lines {
            if let open = language {
                if line == "```" {
                    blocks.append(Block(language: open, lines: block, paragraph: (paragraph.isEmpty ? last : paragraph).joined(separator: " ")))
                    language = nil
                    paragraph = []
                    last = []
                } else {
                    block.append(line)
                }
            } else if line.hasPrefix("```") {
                language = String(line.dropFirst(3))
                block = []
            } else if line.isEmpty {
                if !paragraph.isEmpty { last = paragraph }
                paragraph = []
            } else {
                paragraph.append(line)
            }
        }
        return blocks
    }

    /// The commands of `shell` blocks: what needs a calendar server, so ReadmeTests, which
    /// runs the `sh` blocks, leaves them to this suite.
    static func shellCommands(in page: String) throws -> [String] {
        try blocks(in: page).filter { $0.language == "shell" }.flatMap(\.lines).filter { !$0.isEmpty }
    }

    /// Every command the README and the manual show in a `shell` block is one the set-up
    /// test runs: the set-up's own, or the README's, which are among them.
    @Test func everyShellBlockOfTheManualIsRunByTheSetUpTest() throws {
        let setUp = try Self.blocks(in: Self.setUpPage, under: Self.setUpHeading).filter { $0.language == "shell" }.flatMap(\.lines)
        #expect(try Self.shellCommands(in: Self.setUpPage) == setUp)
        for page in try ReadmeTests.pages() where page != Self.setUpPage {
            for command in try Self.shellCommands(in: page) {
                #expect(setUp.contains(command), "\(page) shows \(command), which the set-up test does not run")
            }
        }
        #expect(try Self.shellCommands(in: "README.md") == ["chime calendar add --vdir ~/.calendars/personal"])
    }

    /// The section of docs/calendars.md, pasted by a reader: its config files written where it
    /// says (the server's address changed for the test's Radicale, whose one user is the
    /// page's), its commands run in order in a home of the test's, with an event already on
    /// the server from another device.
    @Test func theSetUpInTheManualWorksAsWritten() throws {
        let session = try TestSession()
        let home = session.directory.appendingPathComponent("home")
        let blocks = try Self.blocks(in: Self.setUpPage, under: Self.setUpHeading)
        let vdirsyncer = try #require(blocks.first { $0.paragraph.contains("vdirsyncer/config") }).lines
        func value(_ key: String) throws -> String {
            let line = try #require(vdirsyncer.first { $0.hasPrefix(key + " = ") })
            return String(line.dropFirst(key.count + 3)).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        let server = try Radicale(directory: session.directory.appendingPathComponent("radicale"),
                                  user: try value("username"), password: try value("password"))
        let collection = "\(server.user)/personal/"
        #expect(try server.request("MKCALENDAR", collection) == 201)
        #expect(try server.request("PUT", collection + "lunch.ics", body: CalendarFolderTests.event("lunch@example.org", "Team lunch")) == 201)

        for block in blocks where block.language != "shell" {
            let path = try #require(block.paragraph.firstMatch(of: /`~\/(\.config\/[^`]+)`/)?.1, "no config file named before \(block.lines)")
            let file = home.appendingPathComponent(String(path))
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try block.lines.joined(separator: "\n").replacingOccurrences(of: "url = \"\(try value("url"))\"", with: "url = \"\(server.url)\"")
                .appending("\n").write(to: file, atomically: true, encoding: .utf8)
        }
        // The clients look for their configs in ~/.config, as on a reader's machine.
        let reader = ["XDG_CONFIG_HOME": home.appendingPathComponent(".config").path]
        var printed: [String: String] = [:]
        for command in blocks.filter({ $0.language == "shell" }).flatMap(\.lines) {
            if command == "chime calendar remove personal" {
                // Before the last command: what the ones before it left.
                try folders.waitForTitles(session, ["Team lunch", "Dentist", "Pay the rent"])
            }
            // vdirsyncer discover asks whether to make each folder; the page says to answer y.
            printed[command] = try Self.run(["sh", "-c", command], in: session, extra: reader, stdin: "y\n").stdout
        }
        let folder = home.appendingPathComponent(".calendars/personal").path
        #expect(printed["chime calendar add --vdir ~/.calendars/personal"] == "Following personal (\(folder)): 1 reminder to come.\n")
        #expect(printed["chime calendar list"] == "personal  watching, 1 reminder to come  \(folder)\n")
        #expect(printed["chime calendar remove personal"]
                == "No longer following personal; 3 reminders cancelled. Its files are left as they are.\n")
        // khal's event and todoman's task reached the server with the sync after them.
        let stored = try FileManager.default.contentsOfDirectory(
            atPath: session.directory.appendingPathComponent("radicale/storage/collection-root/\(collection)").path)
        #expect(stored.filter { $0.hasSuffix(".ics") }.count == 3, "\(stored)")
    }
}
