import DBus
import EventLoop
import Foundation
import Glibc
import Testing
import TestSupport
@testable import ChimeDaemon

/// Runs a loop until an answer comes, and keeps a timer ticking on it meanwhile, so a test
/// can see that nothing held the loop while the answer was awaited.
final class LoopWatch {
    let loop: EventLoop
    private var ticker: Source?
    private var lastTick = Date()
    /// The longest time between two ticks (or the last tick and now) so far, in seconds.
    private(set) var longestGap: TimeInterval = 0

    init(_ loop: EventLoop) {
        self.loop = loop
        tick()
    }

    private func tick() {
        let now = Date()
        longestGap = max(longestGap, now.timeIntervalSince(lastTick))
        lastTick = now
        ticker = loop.timeout(afterMilliseconds: 100) { [unowned self] in self.tick() }
    }

    /// Starts a request and runs the loop until its answer (at most `seconds`).
    func answer<T>(within seconds: TimeInterval = 60,
                   _ start: (@escaping (Result<T, PasswordFailure>) -> Void) -> Void) throws -> Result<T, PasswordFailure> {
        var outcome: Result<T, PasswordFailure>?
        start { outcome = $0 }
        #expect(outcome == nil, "answered from inside the call that asked")
        let deadline = Date(timeIntervalSinceNow: seconds)
        while outcome == nil {
            guard Date() < deadline else { throw TestFailure.timeout("no answer within \(seconds) s") }
            try loop.runOnce(timeoutMilliseconds: 1_000)
        }
        longestGap = max(longestGap, Date().timeIntervalSince(lastTick))
        return outcome!
    }
}

/// The failure of `result`; nil for a success.
func failure<T>(_ result: Result<T, PasswordFailure>) -> PasswordFailure? {
    if case .failure(let failure) = result { return failure }
    return nil
}

/// The keyring side of ``Passwords``, against real processes on a private session bus:
/// gnome-keyring-daemon, `secret-tool` (libsecret) beside chimed, and a fake Secret
/// Service (Tests/fake-secret-service.py) for what a keyring does rarely: lock, prompt,
/// never answer.
struct PasswordsTests {
    static let url = "https://dav.example.org/calendars/alice/work/"
    static let user = "alice"

    /// A private bus, a loop, and Passwords on a connection to that bus.
    final class Harness {
        let session: TestSession
        let loop = EventLoop()
        let watch: LoopWatch
        let connection: Connection
        let log = LogRecorder()
        let passwords: Passwords
        private var services: [Spawned] = []

        init(limits: Passwords.Limits = .standard) throws {
            session = try TestSession(capabilities: nil)
            connection = try Connection.bus(address: session.address)
            connection.attach(to: loop)
            watch = LoopWatch(loop)
            passwords = Passwords(bus: connection, loop: loop, logger: log.logger, limits: limits)
        }

        deinit {
            services.forEach { $0.stop() }
        }

        /// Starts gnome-keyring-daemon on the bus with a login keyring of its own,
        /// created and unlocked by the password on its standard input.
        func startGnomeKeyring() throws {
            var environment = session.environment
            for (name, folder) in [("HOME", "keyring-home"), ("XDG_DATA_HOME", "keyring-data"), ("XDG_RUNTIME_DIR", "keyring-run")] {
                let path = session.directory.appendingPathComponent(folder)
                try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                environment[name] = path.path
            }
            services.append(try Spawned(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                        environment: environment, stdin: "keyring password"))
            try session.waitForName("org.freedesktop.secrets")
        }

        /// Starts the fake Secret Service with `arguments`; its output is one line per call.
        @discardableResult
        func startFake(_ arguments: String...) throws -> Spawned {
            let script = packageRoot.appendingPathComponent("Tests/fake-secret-service.py").path
            let fake = try Spawned(["/usr/bin/python3", script] + arguments, environment: session.environment)
            services.append(fake)
            try session.waitForName("org.freedesktop.secrets")
            return fake
        }

        /// `secret-tool ARGUMENTS…` on the bus, as a user would run it.
        func secretTool(_ arguments: String..., stdin: String? = nil) throws -> ProcessResult {
            try session.run(["secret-tool"] + arguments, stdin: stdin)
        }

        func lookup(url: String = PasswordsTests.url, user: String = PasswordsTests.user) throws -> Result<String?, PasswordFailure> {
            try watch.answer { passwords.lookup(url: url, user: user, done: $0) }
        }

        func store(_ password: String, url: String = PasswordsTests.url,
                   user: String = PasswordsTests.user) throws -> Result<Void, PasswordFailure> {
            try watch.answer { passwords.store(url: url, user: user, password: password, done: $0) }
        }

        func delete(url: String = PasswordsTests.url, user: String = PasswordsTests.user) throws -> Result<Void, PasswordFailure> {
            try watch.answer { passwords.delete(url: url, user: user, done: $0) }
        }
    }

    // MARK: - gnome-keyring

    @Test func whatIsStoredIsLookedUpAndLibsecretFindsItToo() throws {
        let harness = try Harness()
        try harness.startGnomeKeyring()
        #expect(try harness.lookup() == .success(nil))
        try harness.store("correct horse battery").get()
        #expect(try harness.lookup() == .success("correct horse battery"))

        let found = try harness.secretTool("lookup", "xdg:schema", "io.github.chime.CalDAV", "url", Self.url, "user", Self.user)
        #expect(found.status == 0 && found.stdout == "correct horse battery", "\(found)")
        let listed = try harness.secretTool("search", "--all", "xdg:schema", "io.github.chime.CalDAV")
        #expect(listed.stdout.contains("label = Chime: alice at dav.example.org"), "\(listed)")
        #expect(!harness.log.messages.contains { $0.contains("correct horse") }, "\(harness.log.messages)")
    }

    @Test func chimedFindsWhatSecretToolStored() throws {
        let harness = try Harness()
        try harness.startGnomeKeyring()
        let stored = try harness.secretTool("store", "--label=by hand", "xdg:schema", "io.github.chime.CalDAV", "url", Self.url,
                                            "user", Self.user, stdin: "typed élan")
        #expect(stored.status == 0, "\(stored)")
        #expect(try harness.lookup() == .success("typed élan"))
        // Every attribute counts: another user, or another URL, has no password.
        #expect(try harness.lookup(user: "bob") == .success(nil))
        #expect(try harness.lookup(url: Self.url + "other/") == .success(nil))
    }

    @Test func storingAgainReplacesThePassword() throws {
        let harness = try Harness()
        try harness.startGnomeKeyring()
        try harness.store("first").get()
        try harness.store("second").get()
        #expect(try harness.lookup() == .success("second"))
        let listed = try harness.secretTool("search", "--all", "xdg:schema", "io.github.chime.CalDAV")
        #expect(listed.stdout.components(separatedBy: "\nsecret = ").count == 2, "one item: \(listed)")
    }

    @Test func deleteRemovesItAndDeletingNothingIsNoError() throws {
        let harness = try Harness()
        try harness.startGnomeKeyring()
        try harness.store("gone soon").get()
        try harness.store("stays", user: "bob").get()
        try harness.delete().get()
        #expect(try harness.lookup() == .success(nil))
        #expect(try harness.secretTool("lookup", "xdg:schema", "io.github.chime.CalDAV", "url", Self.url, "user", Self.user).status != 0)
        #expect(try harness.lookup(user: "bob") == .success("stays"))
        #expect(failure(try harness.delete()) == nil)
    }

    // MARK: - No keyring

    @Test func withNoKeyringOnTheBusEachRequestSaysSo() throws {
        let harness = try Harness()
        #expect(try harness.lookup() == .failure(.noKeyring))
        #expect(failure(try harness.store("x")) == .noKeyring)
        #expect(failure(try harness.delete()) == .noKeyring)
        #expect(PasswordFailure.noKeyring.description.contains("PasswordCommand="))
    }

    @Test func aKeyringThatNeverAnswersFailsWithinTheLimitAndTheLoopRunsOn() throws {
        var limits = Passwords.Limits.standard
        limits.callMilliseconds = 4_000
        let harness = try Harness(limits: limits)
        let fake = try harness.startFake("silent")
        #expect(try harness.lookup() == .failure(.noKeyring))
        #expect(fake.stdout.text.contains("OpenSession"), "the call reached it: \(fake.stdout.text)")
        #expect(harness.watch.longestGap < 2, "the loop stood still for \(harness.watch.longestGap) s")
    }

    @Test func aKeyringWithoutADefaultCollectionCannotStore() throws {
        let harness = try Harness()
        try harness.startFake("empty")
        let sentence = try #require(failure(try harness.store("x"))).description
        #expect(sentence.contains("no default collection") && sentence.contains("PasswordCommand="), "\(sentence)")
        #expect(try harness.lookup() == .success(nil))
    }

    // MARK: - Locked keyrings

    @Test func aLockedKeyringIsUnlockedThroughItsPrompt() throws {
        let harness = try Harness()
        let fake = try harness.startFake("locked", "complete", Self.url, Self.user, "behind the lock")
        #expect(try harness.lookup() == .success("behind the lock"))
        #expect(fake.stdout.text.contains("Unlock\nPrompt\n"), "\(fake.stdout.text)")
        #expect(harness.log.contains("waiting up to 60 s for its unlock prompt"), "\(harness.log.messages)")
        #expect(!harness.log.messages.contains { $0.contains("behind the lock") })

        try harness.store("new one", user: "bob").get()
        #expect(try harness.lookup(user: "bob") == .success("new one"))
        #expect(fake.stdout.text.contains("label Chime: bob at dav.example.org"), "\(fake.stdout.text)")
    }

    @Test func aLockedKeyringPromptsBeforeStoring() throws {
        let harness = try Harness()
        let fake = try harness.startFake("locked", "complete", Self.url, Self.user, "old")
        try harness.store("new").get()
        #expect(fake.stdout.text.contains("Prompt\n"), "\(fake.stdout.text)")
        #expect(try harness.lookup() == .success("new"))
    }

    @Test func aDismissedPromptIsASentence() throws {
        let harness = try Harness()
        try harness.startFake("locked", "dismiss", Self.url, Self.user, "behind the lock")
        #expect(try harness.lookup() == .failure(SecretService.dismissed))
        #expect(SecretService.dismissed.description.contains("dismissed"))
        #expect(failure(try harness.store("x")) == SecretService.dismissed)
    }

    @Test func aPromptNobodyAnswersIsDismissedAfterItsLimit() throws {
        var limits = Passwords.Limits.standard
        limits.promptMilliseconds = 1_500
        let harness = try Harness(limits: limits)
        let fake = try harness.startFake("locked", "never", Self.url, Self.user, "behind the lock")
        let sentence = try #require(failure(try harness.lookup())).description
        #expect(sentence.contains("went unanswered for 1.5 s"), "\(sentence)")
        #expect(fake.stdout.wait(timeout: 30) { $0.contains("Dismiss\n") }, "\(fake.stdout.text)")
        #expect(harness.watch.longestGap < 2)
    }

    // MARK: - Sentences and labels

    @Test func labelsNameTheUserAndTheHost() {
        #expect(Passwords.label(url: "https://dav.example.org/cal/", user: "alice") == "Chime: alice at dav.example.org")
        #expect(Passwords.label(url: "http://127.0.0.1:5232/alice/", user: "a") == "Chime: a at 127.0.0.1:5232")
        #expect(Passwords.label(url: "https://bob@host.example", user: "bob") == "Chime: bob at host.example")
        #expect(Passwords.label(url: "not a url", user: "x") == "Chime: x at not a url")
    }
}
