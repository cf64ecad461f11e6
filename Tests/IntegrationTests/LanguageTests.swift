import Foundation
import Glibc
import Testing
import TestSupport

/// Chime's words and an app's texts in the session's language, chosen when shown: the
/// built chimed with Chime's German catalogue next to it (scripts/locale.sh), and a fake
/// app's catalogue made here with msgfmt in the session's `$XDG_DATA_HOME/locale`.
@Suite(.timeLimit(.minutes(5)))
struct LanguageTests {
    static let german = ["LANGUAGE": "de", "LANG": "de_DE.UTF-8"]

    /// Compiles Chime's translations next to the built binaries if they are not there
    /// (make test does it first).
    static func builtCatalogues() throws {
        let result = try Spawned([packageRoot.appendingPathComponent("scripts/locale.sh").path, binDirectory.path],
                                 environment: ProcessInfo.processInfo.environment).finish(timeout: 120)
        guard result.status == 0 else { throw TestFailure.failed("scripts/locale.sh \(binDirectory.path): \(result)") }
    }

    static let appPO = """
        msgid ""
        msgstr "Content-Type: text/plain; charset=UTF-8\\n"

        msgid "Invoice due"
        msgstr "Rechnung fällig"

        msgid "Pay 100%% now"
        msgstr "Jetzt 100%% zahlen"

        msgid "Pay"
        msgstr "Bezahlen"

        """

    /// Puts `bytes` (or `po` compiled) at `$XDG_DATA_HOME/locale/de/LC_MESSAGES/DOMAIN.mo`.
    static func installAppCatalogue(_ session: TestSession, domain: String, po: String? = appPO, bytes: Data? = nil) throws {
        let folder = session.directory.appendingPathComponent("data/locale/de/LC_MESSAGES")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mo = folder.appendingPathComponent("\(domain).mo")
        if let bytes {
            try bytes.write(to: mo)
            return
        }
        let source = session.directory.appendingPathComponent("\(domain).po")
        try (po ?? "").write(to: source, atomically: true, encoding: .utf8)
        let result = try Spawned(["msgfmt", "--check", "-o", mo.path, source.path], environment: session.environment).finish(timeout: 60)
        guard result.status == 0 else { throw TestFailure.failed("msgfmt: \(result)") }
    }

    @Test func builtInButtonsAndViewArriveInTheSessionsLanguage() throws {
        try Self.builtCatalogues()
        let german = try TestSession(extraEnvironment: Self.german)
        _ = try german.add("Tee", "--in", "1s", "--category", "reminder", "--desktop-entry", "org.example.Kettle")
        let call = try #require(try german.waitForNotifyCalls(1).first)
        #expect(call.contains("['default', 'Anzeigen', 'complete', 'Erledigt', 'remind', 'In 30 Minuten erinnern']"), "\(call)")

        let english = try TestSession(extraEnvironment: ["LANGUAGE": "", "LANG": "C.UTF-8"])
        _ = try english.add("Tea", "--in", "1s", "--category", "reminder", "--desktop-entry", "org.example.Kettle")
        let plain = try #require(try english.waitForNotifyCalls(1).first)
        #expect(plain.contains("['default', 'View', 'complete', 'Complete', 'remind', 'Remind in 30 minutes']"), "\(plain)")
    }

    @Test func configLabelsTakeTheSessionsLanguage() throws {
        let session = try TestSession(extraEnvironment: Self.german)
        let config = session.directory.appendingPathComponent("config/chime")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "[Category todo]\nActions=log;complete;\n[Action log]\nLabel=Log it\nLabel[de]=Protokollieren\n[Action complete]\nLabel=Done\nLabel[fr]=Fait\n"
            .write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        try Self.builtCatalogues()
        _ = try session.add("Tee", "--in", "1s", "--category", "todo", "--default-action", "")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        // Label[de] in German; a label of the user's own without a German one as written.
        #expect(call.contains("['log', 'Protokollieren', 'complete', 'Done']"), "\(call)")
    }

    @Test func appTextsAreTranslatedWithTheAppsDomainAndPercentsUnescaped() throws {
        let session = try TestSession(extraEnvironment: Self.german)
        try Self.installAppCatalogue(session, domain: "org.example.Bills")
        _ = try session.add("Invoice due", "Pay 100%% now", "--in", "1s", "--text-domain", "org.example.Bills", "-A", "pay=Pay",
                            "-A", "skip=Skip 5%%")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Rechnung fällig'>, <'Jetzt 100% zahlen'>"), "\(call)")
        // An untranslated msgid is shown as it is, with %% as %.
        #expect(call.contains("['pay', 'Bezahlen', 'skip', 'Skip 5%']"), "\(call)")
    }

    @Test(arguments: ["damaged", "missing"])
    func aDamagedOrMissingCatalogueShowsTheMsgidAndSaysSoOnce(_ fault: String) throws {
        let session = try TestSession(extraEnvironment: Self.german)
        if fault == "damaged" {
            try Self.installAppCatalogue(session, domain: "org.example.Bills")
            let mo = session.directory.appendingPathComponent("data/locale/de/LC_MESSAGES/org.example.Bills.mo")
            let bytes = try Data(contentsOf: mo)
            try Self.installAppCatalogue(session, domain: "org.example.Bills", bytes: bytes.prefix(bytes.count / 2))
        }
        _ = try session.add("Invoice due", "Pay 100%% now", "--in", "1s", "--text-domain", "org.example.Bills")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Invoice due'>, <'Pay 100% now'>"), "\(call)")
        let log = try session.waitForDaemonLog(containing: fault == "damaged" ? "is damaged" : "No catalogue of text domain 'org.example.Bills'")
        #expect(log.contains("shown untranslated"), "\(log)")
        #expect(try session.run(["chime", "list"]).status == 0, "chimed is still there")
    }

    @Test func aLanguageChangeAfterSchedulingApplies() throws {
        try Self.builtCatalogues()
        let session = try TestSession(extraEnvironment: ["LANGUAGE": "", "LANG": "C.UTF-8"])
        try Self.installAppCatalogue(session, domain: "org.example.Bills")
        _ = try session.add("Invoice due", "--in", "1s", "--text-domain", "org.example.Bills")
        let due = Date().addingTimeInterval(1)
        try session.killDaemon(signal: SIGTERM)
        // Time has to pass for a notification to be missed: there is no event to await.
        Thread.sleep(until: due.addingTimeInterval(3))
        let german = try session.spawnDaemon(umask: "077", environment: Self.german)
        defer { german.stop() }
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Rechnung fällig'>"), "\(call)")
        // The late mark is Chime's own word, in German too.
        #expect(call.contains(" fällig.'>"), "\(call)")
        #expect(call.contains("<'Vor "), "\(call)")
    }

    @Test func aTextDomainThatIsNoFileNameIsRefusedNamingTheOption() throws {
        let session = try TestSession()
        let result = try session.run(["chime", "add", "T", "--in", "1h", "--text-domain", "../evil"])
        #expect(result.status != 0)
        #expect(result.stderr.hasPrefix("chime: --text-domain '../evil'") && !result.stderr.contains("textDomain"), "\(result)")
        #expect(try session.listedIDs().isEmpty)
    }
}
