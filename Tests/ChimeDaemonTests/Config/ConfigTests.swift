import ChimeCore
import Foundation
import Glibc
import Testing
@testable import ChimeDaemon

struct ConfigTests {
    /// A fresh directory per test, removed with it.
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chime-config-\(UUID().uuidString)")
        init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(at: url) }

        func write(_ text: String) throws -> URL {
            let file = url.appendingPathComponent("config")
            try text.write(to: file, atomically: true, encoding: .utf8)
            return file
        }
    }

    /// `text` as the config file, read as chimed reads it.
    static func load(_ text: String) throws -> Result<Config, ConfigError> {
        let directory = try Directory()
        return Config.load(from: try directory.write(text))
    }

    private func load(_ text: String) throws -> Result<Config, ConfigError> {
        try Self.load(text)
    }

    /// The first error of `text`: the one that kept it from being read, or the first of its groups'.
    private func error(_ text: String) throws -> ConfigError {
        let result = try load(text)
        guard let error = result.firstError else {
            Issue.record("Expected an error, got \(result)")
            throw CancellationError()
        }
        return error
    }

    static let example = """
        [Category todo]
        Actions=complete;snooze;log;

        [Action snooze]
        Label=Snooze 5 minutes
        Snooze=5m

        [Action log]
        Label=Log it
        Exec=/usr/bin/logger;-t;chime;pressed
        Timeout=10s
        """

    @Test func readsTheDocumentedExample() throws {
        let config = try load(Self.example).get()
        #expect(config.categories["todo"] == Category(name: "todo", actions: [
            ActionDefinition(key: "complete", label: "Complete", handler: .complete),
            ActionDefinition(key: "snooze", label: "Snooze 5 minutes", handler: .snooze(.after(300))),
            ActionDefinition(key: "log", label: "Log it", handler: .command(["/usr/bin/logger", "-t", "chime", "pressed"], timeout: 10)),
        ]))
        #expect(config.categories["reminder"] == .reminder)
        #expect(config.categories.count == 2)
    }

    @Test func announceOnlyActionsDefaultTimeoutEscapesAndComments() throws {
        let config = try load("""
            # Buttons for the kettle.
            [Category kettle]
            Actions = remind ; open ; brew

            [Action open]
            Label=Open the app

            [Action brew]
            Label=Brew
            Exec=brew;--note;a\\;b;
            """).get()
        #expect(config.categories["kettle"]?.actions == [
            ActionDefinition(key: "remind", label: "Remind in 30 minutes", handler: .snooze(.after(1800))),
            ActionDefinition(key: "open", label: "Open the app", handler: .announce),
            ActionDefinition(key: "brew", label: "Brew", handler: .command(["brew", "--note", "a;b"], timeout: 30)),
        ])
    }

    @Test func aCategoryWithoutActionsHasNoButtons() throws {
        let config = try load("[Category quiet]\n\n[Category empty]\nActions=\n").get()
        #expect(config.categories["quiet"] == Category(name: "quiet", actions: []))
        #expect(config.categories["empty"] == Category(name: "empty", actions: []))
    }

    @Test func aMissingFileMeansTheBuiltInCategories() throws {
        let directory = try Directory()
        let config = try Config.load(from: directory.url.appendingPathComponent("chime/config")).get()
        #expect(config.categories == Category.builtIn)
    }

    @Test func anUnreadableFileIsAnError() throws {
        let directory = try Directory()
        // A directory where the file should be cannot be read as one, even by root.
        let error = try #require(Config.load(from: directory.url).failure)
        #expect(error.path == directory.url.path)
        #expect(error.line == nil)
        #expect(error.message == "The config is a directory, not a regular file, so it was not read.")
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let directory = try Directory()
        let fifo = directory.url.appendingPathComponent("config")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        // Opening a FIFO for reading blocks until a writer comes; none ever does here.
        let error = try #require(Config.load(from: fifo).failure)
        #expect(error.description == "\(fifo.path): The config is a FIFO, not a regular file, so it was not read.")
    }

    @Test func aDeviceIsRefused() throws {
        let directory = try Directory()
        let link = directory.url.appendingPathComponent("config")
        #expect(symlink("/dev/zero", link.path) == 0)
        let error = try #require(Config.load(from: link).failure)
        #expect(error.message == "The config is a character device, not a regular file, so it was not read.")
    }

    @Test func anOversizedConfigIsRefused() throws {
        let directory = try Directory()
        let comment = "# " + String(repeating: "x", count: 1_000) + "\n"
        let file = try directory.write(Self.example + "\n" + String(repeating: comment, count: 300))
        let error = try #require(Config.load(from: file).failure)
        #expect(error.message.hasPrefix("The config has "), "\(error)")
        #expect(error.message.hasSuffix(" bytes, more than the 262144 (256 KiB) Chime reads, so it was not read."), "\(error)")
        // Just under the limit is read.
        let fits = try directory.write(Self.example + "\n" + String(repeating: comment, count: 200))
        #expect(Config.load(from: fits).failure == nil)
    }

    @Test func theReminderCategoryCanBeRedefined() throws {
        let config = try load("""
            [Category reminder]
            Actions=complete;later;

            [Action later]
            Label=Later
            Snooze=2h
            """).get()
        #expect(config.categories["reminder"] == Category(name: "reminder", actions: [
            ActionDefinition(key: "complete", label: "Complete", handler: .complete),
            ActionDefinition(key: "later", label: "Later", handler: .snooze(.after(7200))),
        ]))
    }

    // MARK: - Syntax errors, with the line GLib does not give

    @Test func aLineThatIsNoKeyFileLineIsReportedWithItsNumber() throws {
        let error = try error("""
            [Category todo]
            Actions=complete;

            this line is not a key
            [Action x]
            """)
        #expect(error.line == 4)
        #expect(error.message.contains("this line is not a key"))
        #expect(error.description.hasSuffix(":4: \(error.message)"))
    }

    @Test func aKeyBeforeAnyGroupIsReportedWithItsNumber() throws {
        let error = try error("# comment\n\nActions=complete\n[Category todo]\n")
        #expect(error.line == 3)
    }

    @Test func aBrokenGroupHeaderIsReportedWithItsNumber() throws {
        let error = try error("[Category todo]\nActions=complete\n[Action x\nLabel=X\n")
        #expect(error.line == 3)
    }

    /// Lines that look like `key=value` but that GLib refuses: a bad key name (its
    /// message quotes nothing) and an `Encoding=` other than UTF-8 in the first group.
    static let refusedKeyLines = [
        ("[Action x]\nLabel=X\n\nLabel[x y]=Y\n", 4),
        ("# comment\n[Action x]\nLabel]=X\n", 3),
        ("[Category todo]\nActions=complete;\nEncoding=latin1\n[Action x]\nLabel=X", 3),
        ("[Action x]\r\nLabel=X\r\n\r\n=X\r\n", 4),
    ]

    @Test(arguments: refusedKeyLines)
    func aRefusedKeyIsReportedWithItsNumber(text: String, line: Int) throws {
        let error = try error(text)
        #expect(error.line == line, "\(error)")
        #expect(error.message.hasPrefix("Not a key file: "), "\(error)")
    }

    /// GLib's messages are translated, and quote a line in the language's own marks (in
    /// German »…«): the line number must not come from them. The locale is set for this
    /// thread only, where GLib's gettext reads it.
    @Test(.enabled(if: ConfigTests.hasGermanLocale, "needs the de_DE.UTF-8 locale (localedef -i de_DE -f UTF-8 de_DE.UTF-8)"))
    func theLineDoesNotDependOnTheLanguageOfGLibsMessages() throws {
        let german = try #require(newlocale(Self.messagesMask, "de_DE.UTF-8", nil))
        let previous = uselocale(german)
        defer {
            uselocale(previous)
            freelocale(german)
        }
        let cases = Self.refusedKeyLines + [
            ("[Category todo]\nActions=complete;\n\nthis line is not a key\n", 4),
            ("# comment\n\nActions=complete\n[Category todo]\n", 3),
        ]
        for (text, line) in cases {
            let error = try error(text)
            #expect(error.line == line, "\(error)")
        }
        // GLib did answer in German here, so the test shows what it means to.
        let translated = try error("[Category todo]\nActions=complete;\nEncoding=latin1\n")
        #expect(translated.message.contains("»latin1«"), "\(translated)")
    }

    /// LC_MESSAGES_MASK | LC_CTYPE_MASK (macros Swift does not import): the language, and
    /// the encoding the translations are converted to.
    static let messagesMask = Int32(1 << LC_MESSAGES | 1 << LC_CTYPE)

    static var hasGermanLocale: Bool {
        guard let locale = newlocale(messagesMask, "de_DE.UTF-8", nil) else { return false }
        freelocale(locale)
        return true
    }

    // MARK: - Errors of meaning name the group, the key and the line

    @Test func anUnknownActionInActions() throws {
        let error = try error("""
            [Action snooze]
            Label=Snooze
            Snooze=5m

            [Category todo]
            Actions=complete;snoze;
            """)
        #expect(error.line == 6)
        #expect(error.message.contains("[Category todo]"))
        #expect(error.message.contains("Actions"))
        #expect(error.message.contains("'snoze'"))
    }

    @Test func aMissingLabel() throws {
        let errors = try load("[Category todo]\nActions=x\n\n[Action x]\nSnooze=5m\n").get().errors
        #expect(errors.map(\.line) == [2, 4])
        #expect(errors[1].message == "[Action x] Label is missing: every button needs the text it shows.")
    }

    @Test func anEmptyLabel() throws {
        let error = try error("[Action x]\nLabel=  \n")
        #expect(error.line == 2)
        #expect(error.message.contains("Label is empty"))
    }

    @Test func aSnoozeThatIsNeitherADurationNorATime() throws {
        let error = try error("[Action x]\nLabel=X\nSnooze=five minutes\n")
        #expect(error.line == 3)
        #expect(error.message.contains("[Action x]"))
        #expect(error.message.contains("Snooze: 'five minutes' is neither a duration (10m, 1h30m, 2d) nor a time"), "\(error)")
    }

    /// KAlarm's and GNOME's "tomorrow morning": a time read when the button is pressed.
    @Test func aSnoozeAtATimeOfDay() throws {
        let config = try load("""
            [Category later]
            Actions=soon;hour;morning;

            [Action soon]
            Label=10 minutes
            Snooze=10m

            [Action hour]
            Label=1 hour
            Snooze=in 1h

            [Action morning]
            Label=Tomorrow morning
            Snooze=tomorrow 9:00
            """).get()
        #expect(config.categories["later"]?.actions.map(\.handler) == [.snooze(.after(600)), .snooze(.after(3600)), .snooze(.at("tomorrow 9:00"))])
    }

    @Test func bothSnoozeAndExec() throws {
        let error = try error("[Action x]\nLabel=X\nSnooze=5m\nExec=/bin/true\n")
        #expect(error.line == 4)
        #expect(error.message.contains("not both"))
    }

    @Test func anEmptyExec() throws {
        for exec in ["Exec=", "Exec=;", "Exec=;arg"] {
            let error = try error("[Action x]\nLabel=X\n\(exec)\n")
            #expect(error.line == 3, "\(exec)")
            #expect(error.message.contains("Exec is empty"), "\(exec)")
        }
    }

    @Test func aTimeoutThatIsNoDurationOrHasNoExec() throws {
        let bad = try error("[Action x]\nLabel=X\nExec=/bin/true\nTimeout=0s\n")
        #expect(bad.line == 4)
        #expect(bad.message.contains("Timeout"))
        let alone = try error("[Action x]\nLabel=X\nTimeout=5s\n")
        #expect(alone.line == 3)
        #expect(alone.message.contains("needs Exec"))
    }

    @Test func anEmptyCategoryOrActionName() throws {
        let category = try error("[Action x]\nLabel=X\n[Category ]\nActions=x\n")
        #expect(category.line == 3)
        #expect(category.message.contains("category name is empty"))
        let action = try error("[Category todo]\nActions=complete\n[Action]\nLabel=X\n")
        #expect(action.line == 3)
        #expect(action.message.contains("action name is empty"))
    }

    @Test func unknownGroupsAndKeysAreErrors() throws {
        let group = try error("[Category todo]\nActions=complete\n[Catgory x]\n")
        #expect(group.line == 3)
        #expect(group.message.contains("[Catgory x]"))
        let key = try error("[Action x]\nLabel=X\nLable=Y\n")
        #expect(key.line == 3)
        #expect(key.message.contains("'Lable'"))
    }

    @Test func builtInAndDefaultKeysCannotBeRedefined() throws {
        // A built-in's group may relabel it and set its options: the error is at the key that is neither.
        let builtIn = try error("[Action complete]\nLabel=Done\nSnooze=5m\n")
        #expect(builtIn.line == 3)
        #expect(builtIn.message.contains("built-in"))
        let listed = try error("[Category todo]\nActions=default;\n")
        #expect(listed.line == 2)
        #expect(listed.message.contains("'default'"))
    }

    @Test func everyErrorIsReportedInTheOrderOfTheFile() throws {
        let config = try load("""
            [Action x]
            Label=X
            Snooze=soon

            [Category todo]
            Actions=nothing;
            """).get()
        #expect(config.errors.map(\.line) == [3, 6])
        #expect(config.errors.map(\.path) == config.errors.map { _ in config.errors[0].path })
    }

    // MARK: - A mistake costs its own group

    /// The issue's case: one category lists a button that does not exist. It keeps the
    /// buttons that do; every other group of the file is used.
    @Test func aBadSectionCostsOnlyThatSection() throws {
        let result = try load("""
            [Category broken]
            Actions=complete;nosuch;

            [Category todo]
            Actions=complete;snooze;

            [Action snooze]
            Label=Snooze 5 minutes
            Snooze=5m

            [Category typo]
            Actoins=complete;

            [App org.example.Loud]
            Sounds=sometimes

            [App org.example.Quiet]
            Sounds=false
            """)
        let config = try result.get()
        #expect(config.categories["todo"]?.actions.map(\.key) == ["complete", "snooze"])
        #expect(config.categories["broken"]?.actions.map(\.key) == ["complete"])
        #expect(config.categories["typo"] == nil)
        #expect(config.categories["reminder"] == .reminder)
        #expect(config.apps == ["org.example.Quiet": AppSettings(alerts: true, sounds: false, badges: true)])
        #expect(config.errors.map(\.line) == [2, 12, 15])
        #expect(config.errors[0].message == "[Category broken] Actions lists 'nosuch', which is not an action: define [Action nosuch], "
            + "or use complete or remind; the category shows its other buttons.")
        #expect(config.errors[1].message.hasPrefix("[Category typo] has no key 'Actoins'"), "\(config.errors[1])")
        #expect(config.errors[2].message.hasPrefix("[App org.example.Loud] Sounds is 'sometimes'"), "\(config.errors[2])")
        #expect(Set(config.droppedCategories.keys) == ["typo"])
        #expect(config.droppedCategories["typo"] == config.errors[1])
        #expect(config.errors[0].description == "\(config.errors[0].path):2: \(config.errors[0].message)")
    }

    /// A bad `[Action]` loses its button; each category that lists it keeps its others and
    /// is told which key is missing and where that group is.
    @Test func aCategoryListingABrokenActionKeepsItsOtherButtons() throws {
        let config = try load("""
            [Action log]
            Label=Log
            Exec=

            [Category todo]
            Actions=complete;log;remind;
            MinimalActions=log;complete
            """).get()
        let todo = try #require(config.categories["todo"])
        #expect(todo.actions.map(\.key) == ["complete", "remind"])
        #expect(todo.minimalActions?.map(\.key) == ["complete"])
        #expect(config.errors.map(\.line) == [3, 6])
        #expect(config.errors[1].message == "[Category todo] Actions lists 'log', whose [Action log] (line 1) has an error: "
            + "the category shows its other buttons.")
        #expect(config.droppedCategories.isEmpty)
    }

    @Test func aMisspeltButtonIsSuggested() throws {
        let config = try load("[Action snooze]\nLabel=Snooze\nSnooze=5m\n[Category todo]\nActions=snoze;complet;\n").get()
        #expect(config.categories["todo"]?.actions.isEmpty == true)
        #expect(config.errors.map(\.message) == [
            "[Category todo] Actions lists 'snoze', which is not an action (did you mean 'snooze'?): define [Action snoze], or use "
                + "complete or remind; the category shows its other buttons.",
            "[Category todo] Actions lists 'complet', which is not an action (did you mean 'complete'?): define [Action complet], "
                + "or use complete or remind; the category shows its other buttons.",
        ])
    }

    /// A broken redefinition of a built-in category leaves the built-in one: its name stays known.
    @Test func aBrokenReminderLeavesTheBuiltInOne() throws {
        let config = try load("[Category reminder]\nActions=complete;complete;\n").get()
        #expect(config.categories["reminder"] == .reminder)
        #expect(config.droppedCategories.isEmpty)
        #expect(config.errors.map(\.line) == [2])
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

extension Result<Config, ConfigError> {
    /// The error that kept the file from being read, or the first of the errors it was read with.
    var firstError: ConfigError? {
        switch self {
        case .failure(let error): error
        case .success(let config): config.errors.first
        }
    }
}
