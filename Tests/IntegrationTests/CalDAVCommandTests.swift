import Foundation
import Testing
import TestSupport

/// `chime calendar add URL`, `list`, `sync`, `password` and `remove` for CalDAV calendars,
/// run as a user runs them, against a Radicale of the test's own with one calendar made
/// as another device makes one (MKCALENDAR) and a keyring on the test's bus.
@Suite(.timeLimit(.minutes(10)))
struct CalDAVCommandTests {
    /// A session with a keyring, and a server whose calendar `personal` holds two events
    /// with an alarm each.
    final class Account {
        let session: TestSession
        let keyring: GnomeKeyring
        let server: Radicale
        /// The calendar's address as chimed gives it: without its last slash.
        let location: String

        init() throws {
            session = try TestSession()
            keyring = try GnomeKeyring(session: session)
            server = try Radicale(directory: session.directory.appendingPathComponent("radicale"), user: "alice", password: "secret")
            location = server.url + "alice/personal"
            try Self.expect(server.request("MKCALENDAR", "alice/personal/"), 201)
            try Self.expect(server.request("PUT", "alice/personal/dentist.ics", body: CalendarFolderTests.event("dentist@example.org", "Dentist")), 201)
            try Self.expect(server.request("PUT", "alice/personal/barber.ics", body: CalendarFolderTests.event("barber@example.org", "Barber")), 201)
        }

        static func expect(_ status: Int, _ expected: Int) throws {
            guard status == expected else { throw TestFailure.failed("the server answered \(status), not \(expected)") }
        }

        /// `chime ARGUMENTS…` with `stdin` as its standard input (never a terminal here).
        func chime(_ arguments: String..., stdin: String? = nil) throws -> ProcessResult {
            try session.run(["chime"] + arguments, stdin: stdin, timeout: 120)
        }

        /// Follows every calendar of alice's, the password on standard input.
        func add() throws -> ProcessResult {
            try chime("calendar", "add", server.url, "--user", "alice", "--all", "--password-stdin", stdin: "secret\n")
        }

        /// What `chime calendar list --json` says of calendar `name`.
        func listed(_ name: String = "personal") throws -> [String: Any]? {
            let calendars: [[String: Any]] = try session.json(["chime", "calendar", "list", "--json"])
            return calendars.first { $0["name"] as? String == name }
        }

        func titles() throws -> Set<String> {
            Set(try session.listedJSON().compactMap { $0["title"] as? String })
        }
    }

    /// The account the README adds, as a reader adds theirs: the README's command with the
    /// test server's address, the password typed (here: standard input, not a terminal).
    static let readmeCommand = "chime calendar add https://cloud.example.org/ --user alice"

    @Test func theReadmesAccountIsAddedAsWritten() throws {
        #expect(try CalendarClientTests.shellCommands(in: "README.md").contains(Self.readmeCommand))
        let account = try Account()
        let command = Self.readmeCommand.replacingOccurrences(of: "https://cloud.example.org/", with: account.server.url)
        // As a reader's shell runs it, chime found on the PATH.
        let add = try CalendarClientTests.run(["sh", "-c", command], in: account.session, stdin: "secret\n")
        #expect(add.stderr.isEmpty, "\(add)")
        // One calendar: followed without a question.
        #expect(add.stdout.hasSuffix("Following personal (\(account.location)): 2 reminders to come.\n"), "\(add)")
        #expect(try account.titles() == ["Dentist", "Barber"])
    }

    @Test func everyCalendarIsFollowedWithThePasswordOnStandardInputAndListedAsSynced() throws {
        let account = try Account()
        let add = try account.add()
        #expect(add.status == 0 && add.stderr.isEmpty, "\(add)")
        #expect(add.stdout.hasPrefix("Calendars of alice at \(account.server.url.dropFirst(7).dropLast()):\n"), "\(add)")
        #expect(add.stdout.hasSuffix("Following personal (\(account.location)): 2 reminders to come.\n"), "\(add)")
        #expect(try account.titles() == ["Dentist", "Barber"])

        let listed = try #require(try account.listed())
        #expect(listed["kind"] as? String == "caldav" && listed["state"] as? String == "synced", "\(listed)")
        #expect(listed["location"] as? String == account.location && listed["user"] as? String == "alice", "\(listed)")
        #expect(listed["reminders"] as? Int == 2 && listed["queued"] as? Int == 0 && listed["shareDismissals"] as? Bool == true, "\(listed)")
        #expect(listed["lastSyncTimestamp"] as? Int != nil && listed["error"] == nil, "\(listed)")
        let list = try account.chime("calendar", "list")
        #expect(list.stdout.hasPrefix("personal  synced ") && list.stdout.hasSuffix(", 2 reminders to come  \(account.location)\n"), "\(list)")

        // Asked again, the calendar is followed already: nothing is added twice.
        let again = try account.add()
        #expect(again.status == 0 && again.stderr == "chime: personal is followed already, as personal.\n", "\(again)")
        #expect(try account.titles() == ["Dentist", "Barber"])
    }

    @Test func aCalendarNameThatMatchesNoneIsAUsageErrorNamingThoseFound() throws {
        let account = try Account()
        let add = try account.chime("calendar", "add", account.server.url, "--user", "alice", "--calendar", "personl", stdin: "secret\n")
        #expect(add.status == 64, "\(add)")
        #expect(add.stderr == "chime: --calendar 'personl' names none of the calendars found (personal); did you mean 'personal'?\n", "\(add)")
        #expect(try account.listed() == nil)

        // Named as the server names it, it is followed.
        let named = try account.chime("calendar", "add", account.server.url, "--user", "alice", "--calendar", "personal", stdin: "secret\n")
        #expect(named.status == 0 && named.stdout.hasSuffix("Following personal (\(account.location)): 2 reminders to come.\n"), "\(named)")
    }

    @Test func aWrongPasswordIsRefusedAndNothingIsFollowed() throws {
        let account = try Account()
        let add = try account.chime("calendar", "add", account.server.url, "--user", "alice", "--all", stdin: "not the password\n")
        #expect(add.status == 1 && add.stdout.isEmpty, "\(add)")
        #expect(add.stderr.hasPrefix("chime: ") && add.stderr.contains("refused the password of alice"), "\(add)")
        #expect(try account.listed() == nil)

        let none = try account.chime("calendar", "add", account.server.url, "--user", "alice", "--all", stdin: "")
        #expect(none.status == 64 && none.stderr.contains("No password on standard input"), "\(none)")
    }

    @Test func syncBringsWhatChangedOnTheServerAndSaysHowMuch() throws {
        let account = try Account()
        #expect(try account.add().status == 0)
        let haircut = CalendarFolderTests.event("haircut@example.org", "Haircut", start: "20301203T100000Z")
        try Account.expect(account.server.request("PUT", "alice/personal/haircut.ics", body: haircut), 201)

        let sync = try account.chime("calendar", "sync")
        #expect(sync.status == 0 && sync.stderr.isEmpty, "\(sync)")
        #expect(sync.stdout == "personal: 1 new, 0 updated, 0 removed, 0 presses sent.\n", "\(sync)")
        #expect(try account.titles() == ["Dentist", "Barber", "Haircut"])

        let json = try account.chime("calendar", "sync", "personal", "--json")
        let reports = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        #expect(reports?.count == 1 && reports?.first?["name"] as? String == "personal" && reports?.first?["new"] as? Int == 0, "\(json)")

        let typo = try account.chime("calendar", "sync", "persona")
        #expect(typo.status == 1 && typo.stderr == "chime: No CalDAV calendar is named 'persona'. Did you mean 'personal'?\n", "\(typo)")
    }

    @Test func aWrongPasswordGivenLaterStopsTheSyncUntilTheRightOne() throws {
        let account = try Account()
        #expect(try account.add().status == 0)

        let wrong = try account.chime("calendar", "password", "personal", "--password-stdin", stdin: "not the password\n")
        #expect(wrong.status == 75 && wrong.stdout.isEmpty, "\(wrong)")
        #expect(wrong.stderr.contains("refused the password of alice"), "\(wrong)")
        let refused = try #require(try account.listed())
        #expect(refused["error"] as? String != nil && refused["state"] as? String == refused["error"] as? String, "\(refused)")
        let list = try account.chime("calendar", "list")
        #expect(list.stdout.hasPrefix("personal  not syncing, last synced "), "\(list)")
        let doctor = try account.chime("doctor")
        #expect(doctor.status == 1 && doctor.stdout.contains("Calendar personal cannot be synced: "), "\(doctor)")
        // What it made stays scheduled while it cannot sync.
        #expect(try account.titles() == ["Dentist", "Barber"])

        let right = try account.chime("calendar", "password", "personal", stdin: "secret\n")
        #expect(right.status == 0 && right.stderr.isEmpty, "\(right)")
        #expect(right.stdout == "personal: 0 new, 0 updated, 0 removed, 0 presses sent.\n", "\(right)")
        #expect(try account.listed()?["state"] as? String == "synced")
    }

    @Test func aFirstSyncThatFailsKeepsTheCalendarAndExitsWith75() throws {
        let account = try Account()
        // The command prints the password once, for finding the calendars, and a wrong one after.
        let told = account.session.directory.appendingPathComponent("told").path
        let command = "test -e '\(told)' && echo wrong || { touch '\(told)'; echo secret; }"
        let add = try account.chime("calendar", "add", account.server.url, "--user", "alice", "--all", "--password-command", command)
        #expect(add.status == 75, "\(add)")
        #expect(add.stdout.hasSuffix("Following personal (\(account.location)): 0 reminders to come.\n"), "\(add)")
        #expect(add.stderr.contains("refused the password of alice"), "\(add)")
        #expect(add.stderr.hasSuffix("chime: personal is followed all the same; once that is mended, 'chime calendar sync personal' syncs it.\n"),
                "\(add)")
        #expect(try account.listed()?["error"] as? String != nil)
    }

    @Test func removedTheCalendarsRemindersGoAndItsItemsStayOnTheServer() throws {
        let account = try Account()
        #expect(try account.add().status == 0)
        let remove = try account.chime("calendar", "remove", "personal")
        #expect(remove.status == 0, "\(remove)")
        #expect(remove.stdout == "No longer following personal; 2 reminders cancelled. Its items on the server are left as they are.\n", "\(remove)")
        #expect(try account.titles().isEmpty)
        #expect(try account.listed() == nil)
        #expect(try account.server.get("alice/personal/dentist.ics").contains("SUMMARY:Dentist"))
    }
}
