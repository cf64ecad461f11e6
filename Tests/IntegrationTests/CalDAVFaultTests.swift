import Foundation
import Glibc
import Testing
import TestSupport

/// chimed syncing a real CalDAV server that misbehaves as servers do: down when the calendar
/// is added, killed in the middle of a sync, refusing a password, behind a self-signed
/// certificate, forgetting its sync token, answering empty; chimed itself killed with
/// presses still to send, and two machines writing the same item at once. Each test runs
/// the built chimed on a private bus against Radicale (or xandikos), and asserts what the
/// server ends up holding and what chimed answers, logs and lists.
@Suite(.timeLimit(.minutes(10)))
struct CalDAVFaultTests {
    /// The phone of ``CalDAVSyncTests`` on any server: Tests/caldav-phone.py through the
    /// PyPI caldav client.
    struct Phone {
        let url: String, user: String, password: String
        let session: TestSession

        init(_ server: Radicale, _ session: TestSession) {
            (url, user, password, self.session) = (server.url, server.user, server.password, session)
        }

        init(url: String, user: String, password: String, session: TestSession) {
            (self.url, self.user, self.password, self.session) = (url, user, password, session)
        }

        @discardableResult
        func run(_ arguments: [String], stdin: String? = nil) throws -> String {
            let python = packageRoot.appendingPathComponent(".build/oracle/bin/python").path
            let script = packageRoot.appendingPathComponent("Tests/caldav-phone.py").path
            let result = try session.run([python, script, url, user, password] + arguments, stdin: stdin)
            guard result.status == 0 else { throw TestFailure.failed("the phone: \(arguments): \(result)") }
            return result.stdout
        }

        /// Makes calendar `name` (for `components` only, when given); its URL.
        func make(_ name: String, components: [String] = []) throws -> String {
            try run(["make", name] + (components.isEmpty ? [] : [components.joined(separator: ",")]))
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func put(_ calendar: String, _ text: String) throws { try run(["put", calendar], stdin: text) }
        func get(_ calendar: String, _ uid: String) throws -> String { try run(["get", calendar, uid]) }
        func complete(_ calendar: String, _ uid: String) throws { try run(["complete", calendar, uid]) }
    }

    // MARK: - Helpers

    /// A file holding `password`, for a passwordCommand `cat FILE`.
    static func passwordFile(_ session: TestSession, _ password: String) throws -> URL {
        let file = session.directory.appendingPathComponent("password")
        try (password + "\n").write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    /// AddCalendar's options for `user` with the password `cat FILE` prints, in GVariant text.
    static func options(user: String = "alice", passwordFile: URL, interval: Int = 300, extra: String = "") -> String {
        "{'user': <'\(user)'>, 'passwordCommand': <'cat \(passwordFile.path)'>, 'interval': <uint32 \(interval)>\(extra)}"
    }

    /// AddCalendar of `location` with `options` (GVariant text), over gdbus.
    static func add(_ session: TestSession, _ location: String, _ options: String) throws -> ProcessResult {
        try session.callScheduler("AddCalendar", location, options, timeout: 120)
    }

    /// What gdbus printed for `key` in the first dictionary that has it: a string's text,
    /// else the value as printed (`uint32 2`, `true`).
    static func value(_ key: String, in text: String) -> String? {
        guard let start = text.range(of: "'\(key)': <") else { return nil }
        let rest = text[start.upperBound...]
        guard let quote = rest.first else { return nil }
        guard quote == "'" || quote == "\"" else { return String(rest.prefix { $0 != ">" }) }
        // GLib prints a string in double quotes when it holds a single one, and escapes with \.
        var string = "", escaped = false
        for character in rest.dropFirst() {
            if escaped {
                string.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == quote {
                return string
            } else {
                string.append(character)
            }
        }
        return nil
    }

    /// The number gdbus printed for `key` (`uint32 2`).
    static func number(_ key: String, in text: String) -> Int? {
        value(key, in: text).flatMap { $0.split(separator: " ").last }.flatMap { Int($0) }
    }

    /// What the Calendars method answers (one calendar per session here).
    static func calendars(_ session: TestSession) throws -> String {
        let result = try session.callScheduler("Calendars")
        guard result.status == 0 else { throw TestFailure.failed("Calendars: \(result)") }
        return result.stdout
    }

    static func state(_ session: TestSession) throws -> String? { value("state", in: try calendars(session)) }

    /// SyncCalendar of `name`: its report in GVariant text.
    static func sync(_ session: TestSession, _ name: String) throws -> String {
        let result = try session.callScheduler("SyncCalendar", "'\(name)'", timeout: 300)
        guard result.status == 0 else { throw TestFailure.failed("SyncCalendar: \(result)") }
        return result.stdout
    }

    static func waitFor(_ what: String, timeout: TimeInterval = 90, _ check: () throws -> Bool) throws {
        try CalDAVSyncTests.waitFor(what, timeout: timeout, check)
    }

    static func task(_ uid: String, _ title: String, due: Date) -> String { CalDAVSyncTests.task(uid, title, due: due) }

    /// The ids `chime list` shows, by title.
    static func idsByTitle(_ session: TestSession) throws -> [String: String] {
        Dictionary(try session.listedJSON().compactMap { entry in
            (entry["title"] as? String).flatMap { title in (entry["id"] as? String).map { (title, $0) } }
        }, uniquingKeysWith: { first, _ in first })
    }

    /// How many times `fragment` occurs in `text`.
    static func occurrences(of fragment: String, in text: String) -> Int { text.components(separatedBy: fragment).count - 1 }

    // MARK: - The server down, or going down

    @Test func aServerDownWhenTheCalendarIsAddedLeavesItOfflineUntilItComesBack() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))
        try phone.put(calendar, CalDAVSyncTests.event("dentist@phone", "Dentist", start: Date().addingTimeInterval(2 * 86_400)))
        server.stop()

        // Added all the same: the answer says why it holds nothing yet.
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret")))
        #expect(added.status == 0, "\(added)")
        #expect(Self.value("state", in: added.stdout) == "offline", "\(added)")
        let error = try #require(Self.value("error", in: added.stdout), "\(added)")
        #expect(error.contains("cannot connect to 127.0.0.1:\(server.port)"), "\(error)")
        #expect(try a.listedJSON().isEmpty)

        // Nothing asks it to: the back-off's next try, 10 s on, finds the server up.
        try server.start()
        try Self.waitFor("the calendar synced") { try Self.state(a) == "synced" }
        let ids = try Self.idsByTitle(a)
        #expect(try Set(ids.keys) == ["Buy milk", "Dentist"] && a.listedJSON().count == 2, "\(ids)")
        #expect(try Self.value("error", in: Self.calendars(a)) == nil)

        // Read once: a sync now brings nothing new, and nothing twice.
        let report = try Self.sync(a, "tasks")
        #expect(Self.number("new", in: report) == 0 && Self.number("updated", in: report) == 0 && Self.value("error", in: report) == nil,
                "\(report)")
        #expect(try Self.idsByTitle(a) == ids)
        #expect(try a.listedJSON().count == 2)
    }

    /// NetworkManager (python-dbusmock's template on the test's system bus) saying the network
    /// is back syncs a calendar that could not reach its server at once, not at its next try.
    @Test func theNetworkComingBackSyncsAnOfflineCalendarAtOnce() throws {
        let a = try TestSession(systemBus: true)
        let manager = try #require(a.systemBus).startTemplate("networkmanager", owning: "org.freedesktop.NetworkManager")
        func networkState(_ state: Int) throws {
            let set = try a.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.NetworkManager", "--object-path",
                                 "/org/freedesktop/NetworkManager", "--method", "org.freedesktop.DBus.Mock.SetGlobalConnectionState", "\(state)"])
            guard set.status == 0 else { throw TestFailure.failed("\(set)") }
        }
        try networkState(20)
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))
        server.stop()
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret")))
        let offlineAt = Date()
        #expect(Self.value("state", in: added.stdout) == "offline", "\(added)")
        try server.start()
        // The back-off would try again 10 s after the first failure; the network's return comes first.
        try networkState(70)
        try a.waitForLog("The network is back (NetworkManager)")
        try Self.waitFor("the calendar synced") { try Self.state(a) == "synced" }
        #expect(Date().timeIntervalSince(offlineAt) < 9, "synced only at the back-off's try")
        #expect(try Self.idsByTitle(a).keys.sorted() == ["Buy milk"])
        withExtendedLifetime(manager) {}
    }

    @Test func aServerKilledInTheMiddleOfASyncCostsNothingAndTheNextSyncReadsAll() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("big")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))
        try phone.put(calendar, Self.task("bread@phone", "Buy bread", due: Date().addingTimeInterval(86_400)))
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret")))
        #expect(Self.value("state", in: added.stdout) == "synced", "\(added)")
        let before = try Self.idsByTitle(a)
        #expect(before.count == 2)

        // 3,000 tasks written straight into the collection's folder, as a server's import
        // would: Radicale reads each of them at the next sync, which takes it seconds.
        let folder = server.storage.appendingPathComponent("collection-root/alice/big")
        let count = 3000
        for index in 0..<count {
            let text = Self.task("bulk-\(index)@store", "Bulk \(index)", due: Date().addingTimeInterval(86_400 * 30))
            try text.write(to: folder.appendingPathComponent("bulk-\(index).ics"), atomically: false, encoding: .utf8)
        }

        // Killed as soon as chimed's first request of the sync has reached it.
        let logged = server.process.stderr.text.count
        let sync = try a.spawn(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime",
                                "--method", "io.github.chime.Scheduler1.SyncCalendar", "big"])
        #expect(server.process.stderr.wait(timeout: 60) { $0.count > logged && $0.dropFirst(logged).contains("REPORT request for") },
                "\(server.process.stderr.text)")
        server.stop()
        let report = try sync.finish(timeout: 120)
        #expect(report.status == 0, "\(report)")
        let error = try #require(Self.value("error", in: report.stdout), "\(report)")
        #expect(error.contains("127.0.0.1:\(server.port)"), "\(error)")
        #expect(try Self.state(a) == "offline")
        #expect(try Self.idsByTitle(a) == before)
        try a.waitForLog("warning chimed: [ChimeDaemon] \(error)")

        // Back: the back-off's next sync reads every item, each once.
        try server.start()
        try Self.waitFor("3,002 reminders", timeout: 300) { try Self.number("reminders", in: Self.calendars(a)) == count + 2 }
        #expect(try Self.state(a) == "synced")
        let listed = try a.listedJSON()
        let titles = listed.compactMap { $0["title"] as? String }
        #expect(listed.count == count + 2 && Set(titles).count == count + 2, "\(listed.count) listed, \(Set(titles).count) titles")
        #expect(titles.contains("Bulk 0") && titles.contains("Bulk \(count - 1)"))
        #expect(try Self.idsByTitle(a).filter { before.keys.contains($0.key) } == before)
        try a.waitForLog("Calendar big: synced: \(count) new, 0 updated, 0 removed")
    }

    // MARK: - Passwords

    @Test func aWrongPasswordFromACommandIsToldOnceAndTheRightOneSyncs() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))
        let file = try Self.passwordFile(a, "wrong")

        let added = try Self.add(a, calendar, Self.options(passwordFile: file, interval: 5))
        #expect(added.status == 0, "\(added)")
        let refusal = try #require(Self.value("state", in: added.stdout))
        #expect(refusal.contains("refused the password of alice for calendar tasks") && refusal.contains("cat \(file.path)"), "\(refusal)")
        #expect(Self.value("error", in: added.stdout) == refusal)

        // Asked again every interval (5 s), refused each time; the user is told once.
        try a.waitForLog("refused the password of alice", times: 4, timeout: 120)
        let told = try a.notifyCalls().filter { $0.contains("Chime: a calendar needs you") }
        #expect(told.count == 1 && told.first?.contains("refused the password") == true, "\(told)")
        #expect(try Self.state(a) == refusal)
        #expect(try a.listedJSON().isEmpty)

        // The command prints the right one now: a sync asked for reads the calendar.
        try "secret\n".write(to: file, atomically: true, encoding: .utf8)
        let report = try Self.sync(a, "tasks")
        #expect(Self.value("error", in: report) == nil && Self.number("new", in: report) == 1, "\(report)")
        #expect(try Self.state(a) == "synced")
        #expect(try Self.idsByTitle(a).keys.sorted() == ["Buy milk"])
        #expect(try a.notifyCalls().filter { $0.contains("Chime: a calendar needs you") }.count == 1)
    }

    @Test func aPasswordInTheKeyringIsRefusedMendedFoundBySecretToolAndRemovedWithTheCalendar() throws {
        let a = try TestSession()
        let keyring = try GnomeKeyring(session: a)
        let right = "c0rrect-h0rse-7391"
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: right)
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))

        let added = try Self.add(a, calendar, "{'user': <'alice'>, 'password': <'wr0ng-pass-1234'>, 'interval': <uint32 300>}")
        #expect(added.status == 0, "\(added)")
        let refusal = try #require(Self.value("state", in: added.stdout))
        #expect(refusal.contains("refused the password of alice for calendar tasks") && refusal.contains("chime calendar password tasks"),
                "\(refusal)")

        let mended = try a.callScheduler("SetCalendarPassword", "tasks", right)
        #expect(mended.status == 0 && Self.value("error", in: mended.stdout) == nil && Self.number("new", in: mended.stdout) == 1, "\(mended)")
        #expect(try Self.state(a) == "synced")
        #expect(try Self.idsByTitle(a).keys.sorted() == ["Buy milk"])

        // Kept by the keyring, for the server's origin, where libsecret finds it.
        let origin = "http://127.0.0.1:\(server.port)"
        let found = try keyring.secretTool("lookup", "xdg:schema", "io.github.chime.CalDAV", "url", origin, "user", "alice")
        #expect(found.status == 0 && found.stdout == right, "\(found)")
        // Never in chimed's own files, nor in what it logged.
        for folder in [a.dataDirectory, a.stateDirectory] {
            let grep = try a.run(["grep", "-r", "-a", "-l", "-e", right, "-e", "wr0ng-pass", folder.path])
            #expect(grep.status == 1 && grep.stdout.isEmpty, "\(folder.path): \(grep)")
        }
        #expect(!a.daemonLog.contains(right) && !a.daemonLog.contains("wr0ng-pass"))

        // Removed with the calendar, the last of that account.
        let removed = try a.callScheduler("RemoveCalendar", "tasks")
        #expect(removed.status == 0, "\(removed)")
        try Self.waitFor("the keyring item gone") {
            try keyring.secretTool("lookup", "xdg:schema", "io.github.chime.CalDAV", "url", origin, "user", "alice").status != 0
        }
        #expect(try keyring.secretTool("search", "--all", "xdg:schema", "io.github.chime.CalDAV").stdout.isEmpty)
    }

    // MARK: - TLS

    /// A self-signed certificate for 127.0.0.1 and its key, made now in `folder`.
    static func selfSigned(in folder: URL, session: TestSession) throws -> (certificate: URL, key: URL) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let certificate = folder.appendingPathComponent("cert.pem"), key = folder.appendingPathComponent("key.pem")
        let made = try session.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path])
        guard made.status == 0 else { throw TestFailure.failed("openssl: \(made)") }
        return (certificate, key)
    }

    @Test func aSelfSignedCertificateFailsWithAHintAndIsTrustedWithItsCA() throws {
        let a = try TestSession()
        let tls = try Self.selfSigned(in: a.directory.appendingPathComponent("tls"), session: a)
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret", tls: tls)
        #expect(server.url.hasPrefix("https://"))
        #expect(try server.request("MKCALENDAR", "alice/tasks/") == 201)
        #expect(try server.request("PUT", "alice/tasks/milk.ics", body: Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400))) == 201)
        let calendar = server.url + "alice/tasks/"
        let file = try Self.passwordFile(a, "secret")

        // Not trusted: failed (the user must act), with what to do.
        let refused = try Self.add(a, calendar, Self.options(passwordFile: file))
        #expect(refused.status == 0, "\(refused)")
        let sentence = try #require(Self.value("state", in: refused.stdout))
        #expect(sentence != "offline" && sentence.contains("certificate of 127.0.0.1 is not trusted") && sentence.contains("--ca"), "\(sentence)")
        #expect(try a.listedJSON().isEmpty)

        #expect(try a.callScheduler("RemoveCalendar", "tasks").status == 0)
        let trusted = try Self.add(a, calendar, Self.options(passwordFile: file, extra: ", 'ca': <'\(tls.certificate.path)'>"))
        #expect(Self.value("state", in: trusted.stdout) == "synced" && Self.number("reminders", in: trusted.stdout) == 1, "\(trusted)")
        #expect(try Self.idsByTitle(a).keys.sorted() == ["Buy milk"])
    }

    // MARK: - chimed killed with presses to send

    @Test func aPressQueuedWhileOfflineSurvivesSIGKILLAndReachesTheServer() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(15)))
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret")))
        #expect(Self.value("state", in: added.stdout) == "synced", "\(added)")
        let id = try CalDAVSyncTests.onlyID(a)

        // The server goes away before it rings; it rings all the same, and Complete is kept.
        server.stop()
        let rung = try a.waitForNotifyCalls(1)
        #expect(rung.count == 1 && rung[0].contains("Buy milk"), "\(rung)")
        #expect(try a.run(["chime", "act", id, "complete"]).status == 0)
        try Self.waitFor("the press queued") { try Self.number("queued", in: Self.calendars(a)) == 1 }
        #expect(try Self.state(a) == "offline")

        // chimed dies with it queued; the server comes back; chimed is started by a call.
        try a.killDaemon()
        try server.start()
        #expect(try a.run(["chime", "list"]).status == 0)
        try Self.waitFor("COMPLETED on the server") { try phone.get(calendar, "milk@phone").contains("STATUS:COMPLETED") }
        try Self.waitFor("nothing queued") { try Self.number("queued", in: Self.calendars(a)) == 0 }
        try a.waitForLog("Calendar tasks: wrote complete of milk@phone")
        // Sent once, and it did not ring again.
        #expect(Self.occurrences(of: "wrote complete of milk@phone", in: a.daemonLog) == 1)
        let calls = try a.notifyCallsUpToAMarker()
        #expect(calls.filter { $0.contains("Buy milk") }.count == 1, "\(calls)")
    }

    // MARK: - Two machines at once

    @Test func completeOnOneMachineAndRemindOnAnotherAtOnceBothReachTheItem() throws {
        let a = try TestSession(), b = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("shared")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(15)))
        let file = try Self.passwordFile(a, "secret")
        for session in [a, b] {
            let added = try Self.add(session, calendar, Self.options(passwordFile: file))
            #expect(Self.value("state", in: added.stdout) == "synced", "\(added)")
        }
        let idA = try CalDAVSyncTests.onlyID(a), idB = try CalDAVSyncTests.onlyID(b)
        _ = try a.waitForNotifyCalls(1)
        let rungB = try b.waitForNotifyCalls(1)
        #expect(rungB[0].contains("'remind'"), "\(rungB)")

        // Pressed together while Radicale is stopped (SIGSTOP): both machines' GETs wait in
        // its listen queue and are answered together, with the same ETag, so both PUTs go
        // If-Match that one; the second is refused (412), read again, patched and sent.
        let radicale = server.process.process.processIdentifier
        kill(radicale, SIGSTOP)
        defer { kill(radicale, SIGCONT) }
        let complete = try a.spawn(["chime", "act", idA, "complete"])
        let remind = try b.spawn(["chime", "act", idB, "remind"])
        #expect(try complete.finish().status == 0)
        #expect(try remind.finish().status == 0)
        try Self.waitFor("both presses queued") {
            try Self.number("queued", in: Self.calendars(a)) == 1 && Self.number("queued", in: Self.calendars(b)) == 1
        }
        kill(radicale, SIGCONT)
        try Self.waitFor("both presses on the server") {
            let item = try phone.get(calendar, "milk@phone")
            return item.contains("STATUS:COMPLETED") && item.contains("RELTYPE=SNOOZE")
        }
        try a.waitForLog("Calendar shared: wrote complete of milk@phone")
        try b.waitForLog("Calendar shared: wrote snooze of milk@phone")
        let item = try phone.get(calendar, "milk@phone")
        #expect(Self.occurrences(of: "RELATED-TO;RELTYPE=SNOOZE:", in: item) == 1 && item.contains("X-MOZ-SNOOZE-TIME:")
                    && item.contains("PERCENT-COMPLETE:100") && item.contains("SUMMARY:Buy milk"), "\(item)")
        let retried = [a, b].map { Self.occurrences(of: "changed on the server while it was written; reading it again.", in: $0.daemonLog) }
        #expect(retried.reduce(0, +) == 1, "\(retried)")
        try Self.waitFor("nothing queued") {
            try Self.number("queued", in: Self.calendars(a)) == 0 && Self.number("queued", in: Self.calendars(b)) == 0
        }
    }

    @Test func remindWritesOneSnoozeAlarmAsThunderbirdDoes() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(12)))
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret")))
        #expect(Self.value("state", in: added.stdout) == "synced", "\(added)")
        let id = try CalDAVSyncTests.onlyID(a)
        _ = try a.waitForNotifyCalls(1)
        let pressed = Date()
        #expect(try a.run(["chime", "act", id, "remind"]).status == 0)
        try Self.waitFor("the snooze on the server") { try phone.get(calendar, "milk@phone").contains("RELTYPE=SNOOZE") }

        let item = try phone.get(calendar, "milk@phone")
        #expect(Self.occurrences(of: "BEGIN:VALARM", in: item) == 2 && Self.occurrences(of: "RELATED-TO;RELTYPE=SNOOZE:", in: item) == 1,
                "\(item)")
        #expect(item.contains("X-MOZ-LASTACK:") && !item.contains("STATUS:COMPLETED"), "\(item)")
        let until = try #require(item.firstMatch(of: /X-MOZ-SNOOZE-TIME:(\d{8}T\d{6}Z)/).map { String($0.1) }, "\(item)")
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let snoozed = try #require(formatter.date(from: until))
        #expect(snoozed >= pressed.addingTimeInterval(29 * 60) && snoozed <= Date().addingTimeInterval(31 * 60), "\(until)")

        // Read back by the next sync: the server's snooze alarm is the reminder chimed has,
        // not a second one.
        let report = try Self.sync(a, "tasks")
        #expect(Self.value("error", in: report) == nil, "\(report)")
        let listed = try a.listedJSON()
        #expect(listed.count == 1 && listed.first?["title"] as? String == "Buy milk", "\(listed)")
        #expect(try Self.occurrences(of: "RELATED-TO;RELTYPE=SNOOZE:", in: phone.get(calendar, "milk@phone")) == 1)
    }

    // MARK: - What the server forgets, or empties

    @Test func aSyncTokenTheServerNoLongerKnowsMeansReadingTheETagsAgain() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))
        try phone.put(calendar, Self.task("bread@phone", "Buy bread", due: Date().addingTimeInterval(86_400)))
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret")))
        #expect(Self.value("state", in: added.stdout) == "synced", "\(added)")
        let ids = try Self.idsByTitle(a)
        #expect(ids.count == 2)

        // Radicale keeps its tokens (and the history they are made of) in this cache.
        try FileManager.default.removeItem(at: server.storage.appendingPathComponent("collection-root/alice/tasks/.Radicale.cache"))
        let report = try Self.sync(a, "tasks")
        #expect(Self.value("error", in: report) == nil, "\(report)")
        #expect(Self.number("new", in: report) == 0 && Self.number("updated", in: report) == 0 && Self.number("removed", in: report) == 0,
                "\(report)")
        #expect(server.process.stderr.text.contains("Client provided invalid sync token"))
        try a.waitForLog("Calendar tasks: the server no longer knows the sync token; reading every item's ETag.")
        #expect(try Self.idsByTitle(a) == ids)
        #expect(try a.listedJSON().count == 2)

        // The new token is good: the next sync goes by it.
        try phone.put(calendar, Self.task("eggs@phone", "Buy eggs", due: Date().addingTimeInterval(86_400)))
        let next = try Self.sync(a, "tasks")
        #expect(Self.number("new", in: next) == 1 && Self.value("error", in: next) == nil, "\(next)")
        #expect(Self.occurrences(of: "no longer knows the sync token", in: a.daemonLog) == 1)
        #expect(try Self.idsByTitle(a).filter { ids.keys.contains($0.key) } == ids)
    }

    @Test func aCollectionEmptiedOnTheServerIsBelievedAtTheSecondSync() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let calendar = try phone.make("tasks")
        try phone.put(calendar, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))
        try phone.put(calendar, Self.task("bread@phone", "Buy bread", due: Date().addingTimeInterval(86_400)))
        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret"), interval: 5))
        #expect(Self.value("state", in: added.stdout) == "synced" && Self.number("reminders", in: added.stdout) == 2, "\(added)")

        // Every item deleted, in one curl (one connection, a few ms apart), as a user emptying it would.
        let folder = server.storage.appendingPathComponent("collection-root/alice/tasks")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".ics") }
        #expect(names.count == 2, "\(names)")
        var delete = ["curl", "--silent", "--user", "alice:secret", "--request", "DELETE", "--write-out", "%{http_code} "]
        for name in names { delete += ["--output", "/dev/null", calendar + name] }
        let deleted = try a.run(delete)
        #expect(deleted.stdout == "200 200 ", "\(deleted)")

        // Kept at the first sync that finds it empty: still listed.
        try a.waitForLog("the server lists no items where")
        let kept = try #require(a.daemonLog.firstMatch(of: /Calendar tasks: the server lists no items where (\d+) were; kept until a later sync says the same./)
                                    .flatMap { Int($0.1) })
        #expect(try a.listedJSON().count == kept && kept >= 1)
        // Believed an interval later.
        try a.waitForLog("Calendar tasks: the collection is still empty; its \(kept) items are taken as removed.")
        try Self.waitFor("nothing listed") { try a.listedJSON().isEmpty }
        #expect(try Self.state(a) == "synced")
    }

    // MARK: - Discovery

    @Test func discoveryFindsTheAccountsCalendarsAndSaysWhatIsWrong() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        _ = try phone.make("events", components: ["VEVENT"])
        _ = try phone.make("tasks", components: ["VTODO"])

        let found = try a.callScheduler("DiscoverCalendars", server.url, "{'user': <'alice'>, 'password': <'secret'>}")
        #expect(found.status == 0, "\(found)")
        let calendars = found.stdout.components(separatedBy: "}, {")
        #expect(calendars.count == 2, "\(found.stdout)")
        for (name, component) in [("events", "VEVENT"), ("tasks", "VTODO")] {
            let entry = try #require(calendars.first { Self.value("location", in: $0) == server.url + "alice/" + name }, "\(found.stdout)")
            #expect(Self.value("name", in: entry) == name, "\(entry)")
            #expect(Self.value("components", in: entry) == "['\(component)']", "\(entry)")
            #expect(Self.value("writable", in: entry) == "true", "\(entry)")
        }

        let refused = try a.callScheduler("DiscoverCalendars", server.url, "{'user': <'alice'>, 'password': <'wrong'>}")
        #expect(refused.status != 0 && refused.stderr.contains("org.freedesktop.DBus.Error.Failed")
                    && refused.stderr.contains("The server refused the password of alice."), "\(refused)")

        // A web server that is no CalDAV server.
        let site = a.directory.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let web = try Spawned(["/usr/bin/python3", "-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", site.path],
                              environment: ProcessInfo.processInfo.environment)
        #expect(web.stdout.wait(timeout: 60) { $0.contains("Serving HTTP") }, "\(web.stderr.text)")
        let port = try #require(web.stdout.text.firstMatch(of: /port (\d+)/).map { String($0.1) })
        let notDAV = try a.callScheduler("DiscoverCalendars", "http://127.0.0.1:\(port)/", "{'user': <'alice'>, 'password': <'secret'>}")
        #expect(notDAV.status != 0 && notDAV.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs")
                    && notDAV.stderr.contains("it is not a CalDAV server"), "\(notDAV)")
    }

    // MARK: - xandikos

    /// A TCP port free on 127.0.0.1 now, for a server that cannot be told to pick one and say it.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure.failed("socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) == 0 && getsockname(fd, $0, &size) == 0 }
        }
        guard bound else { throw TestFailure.failed("bind: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func aXandikosCalendarIsFollowedBothWays() throws {
        let a = try TestSession()
        let port = try Self.freePort()
        let xandikos = try Spawned(["xandikos", "-d", a.directory.appendingPathComponent("xandikos").path, "--defaults",
                                    "--port", "\(port)", "--listen-address", "127.0.0.1", "--current-user-principal", "/user/"],
                                   environment: ProcessInfo.processInfo.environment)
        let url = "http://127.0.0.1:\(port)/"
        try Self.waitFor("xandikos answering") {
            guard xandikos.process.isRunning else { throw TestFailure.failed("xandikos ended: \(xandikos.stderr.text)") }
            return try a.run(["curl", "--silent", "--output", "/dev/null", url]).status == 0
        }
        // It has no accounts: the phone's user and password go unused, as chimed's do.
        let phone = Phone(url: url, user: "alice", password: "unused", session: a)
        let calendar = url + "user/calendars/calendar/"
        try phone.put(calendar, Self.task("phone@phone", "Done on the phone", due: Date().addingTimeInterval(86_400)))
        try phone.put(calendar, Self.task("here@phone", "Done here", due: Date().addingTimeInterval(15)))

        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "unused"), interval: 5))
        #expect(Self.value("state", in: added.stdout) == "synced" && Self.number("reminders", in: added.stdout) == 2, "\(added)")

        // Completed on the phone: gone here at the next sync.
        try phone.complete(calendar, "phone@phone")
        try Self.waitFor("the phone's task gone") { try Self.idsByTitle(a).keys.sorted() == ["Done here"] }

        // Completed here: written back into xandikos.
        let id = try CalDAVSyncTests.onlyID(a)
        let rung = try a.waitForNotifyCalls(1)
        #expect(rung.count == 1 && rung[0].contains("Done here"), "\(rung)")
        #expect(try a.run(["chime", "act", id, "complete"]).status == 0)
        try Self.waitFor("COMPLETED in xandikos") { try phone.get(calendar, "here@phone").contains("STATUS:COMPLETED") }
        try a.waitForLog("Calendar calendar: wrote complete of here@phone")
        let report = try Self.sync(a, "calendar")
        #expect(Self.value("error", in: report) == nil, "\(report)")
        #expect(try a.listedJSON().isEmpty)
        #expect(try Self.number("queued", in: Self.calendars(a)) == 0)

        // The calendar deleted and made anew at the same address: xandikos answers the
        // token of the old one with HTTP 500, and chimed reads the new one whole.
        for (method, status) in [("DELETE", "204"), ("MKCALENDAR", "201")] {
            let answer = try a.run(["curl", "--silent", "--output", "/dev/null", "--write-out", "%{http_code}", "--request", method, calendar])
            #expect(answer.stdout == status, "\(method): \(answer)")
        }
        try phone.put(calendar, Self.task("new@phone", "In the new calendar", due: Date().addingTimeInterval(86_400)))
        try Self.waitFor("the new calendar's task") { try Self.idsByTitle(a).keys.sorted() == ["In the new calendar"] }
        try a.waitForLog("Calendar calendar: sync-collection with the sync token answered HTTP 500; reading every item's ETag.")
        #expect(try Self.state(a) == "synced")
    }

    // MARK: - HTTP/2

    /// Radicale behind nginx, which offers HTTP/2 over TLS as many deployments do: chimed
    /// syncs and writes back over it, every request HTTP/2 in nginx's log.
    @Test func aCalendarBehindNginxIsSyncedOverHTTP2() throws {
        let a = try TestSession()
        let server = try Radicale(directory: a.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
        let phone = Phone(server, a)
        let direct = try phone.make("tasks")
        try phone.put(direct, Self.task("milk@phone", "Buy milk", due: Date().addingTimeInterval(86_400)))

        let tls = try Self.selfSigned(in: a.directory.appendingPathComponent("tls"), session: a)
        let folder = a.directory.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try Self.freePort()
        let log = folder.appendingPathComponent("access.log")
        let configuration = folder.appendingPathComponent("nginx.conf")
        try """
            daemon off;
            worker_processes 1;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log info;
            events { worker_connections 64; }
            http {
                log_format protocol '$server_protocol $request_method $uri $status';
                access_log \(log.path) protocol;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                server {
                    listen 127.0.0.1:\(port) ssl http2;
                    ssl_certificate \(tls.certificate.path);
                    ssl_certificate_key \(tls.key.path);
                    location / {
                        proxy_pass http://127.0.0.1:\(server.port);
                        proxy_set_header Host $host:$server_port;
                    }
                }
            }

            """.write(to: configuration, atomically: true, encoding: .utf8)
        // Run as root (as CI is), nginx's workers would become nobody, who cannot read the test's folder.
        let user = getuid() == 0 ? ["-g", "user root;"] : []
        let nginx = try Spawned(["/usr/sbin/nginx", "-p", folder.path, "-e", folder.appendingPathComponent("error.log").path,
                                 "-c", configuration.path] + user, environment: ProcessInfo.processInfo.environment)
        let calendar = "https://127.0.0.1:\(port)/alice/tasks/"
        try Self.waitFor("nginx answering over HTTP/2") {
            guard nginx.process.isRunning else {
                throw TestFailure.failed("nginx ended: \(nginx.stderr.text) \((try? String(contentsOf: folder.appendingPathComponent("error.log"), encoding: .utf8)) ?? "")")
            }
            let answer = try a.run(["curl", "--silent", "--http2", "--cacert", tls.certificate.path, "--output", "/dev/null",
                                    "--write-out", "%{http_version}", calendar])
            return answer.stdout == "2"
        }

        let added = try Self.add(a, calendar, Self.options(passwordFile: try Self.passwordFile(a, "secret"),
                                                           extra: ", 'ca': <'\(tls.certificate.path)'>"))
        #expect(Self.value("state", in: added.stdout) == "synced" && Self.number("reminders", in: added.stdout) == 1, "\(added)")
        let id = try CalDAVSyncTests.onlyID(a)
        #expect(try a.run(["chime", "act", id, "complete"]).status == 0)
        try Self.waitFor("COMPLETED on the server") { try phone.get(direct, "milk@phone").contains("STATUS:COMPLETED") }

        // chimed's requests (curl's first one aside), each HTTP/2.
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init).filter { !$0.contains(" GET /alice/tasks/ ") }
        #expect(lines.contains { $0.hasPrefix("HTTP/2.0 REPORT /alice/tasks/ 207") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("HTTP/2.0 PUT /alice/tasks/") }, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("HTTP/2.0 ") }, "\(lines)")
    }
}
