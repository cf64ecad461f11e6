import Foundation
import Testing
import TestSupport

/// The README and the manual under docs/ stay true. Every command in their `sh` blocks runs,
/// on a private bus with a notification server, and succeeds: alone in a fresh session,
/// and with the rest of its page, in order, in a session that already holds a reminder of
/// the reader's own, which must survive the page (a reader pastes a page's examples into
/// the session where their reminders are). `make` lines are what CI itself runs, so they
/// are skipped here. Every relative link leads to a file, and every anchor to a heading.
@Suite(.timeLimit(.minutes(10)))
struct ReadmeTests {
    /// One command of one page.
    struct Example: Sendable, CustomTestStringConvertible {
        let page: String
        let command: String
        var testDescription: String { "\(page): \(command)" }
    }

    /// README.md, then every page of docs/, as paths from the package root.
    static func pages() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path)
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    static func text(of page: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(page), encoding: .utf8)
    }

    static func text(of file: URL) throws -> String {
        try String(contentsOf: file, encoding: .utf8)
    }

    /// The lines of `page`'s `sh` blocks, `make` lines included.
    static func commands(in page: String) throws -> [String] {
        var commands: [String] = []
        var inBlock = false
        for line in try text(of: page).split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```sh"
                continue
            }
            guard inBlock, !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            commands.append(String(line))
        }
        return commands
    }

    /// The commands a test runs: every page's, but `make` lines.
    static func runnable(in page: String) throws -> [String] {
        try commands(in: page).filter { !$0.hasPrefix("make ") }
    }

    static func examples() throws -> [Example] {
        try pages().flatMap { page in try runnable(in: page).map { Example(page: page, command: $0) } }
    }

    /// The pages with at least one command to run.
    static func pagesWithExamples() throws -> [String] {
        try pages().filter { try !runnable(in: $0).isEmpty }
    }

    /// Runs `command` as a reader would paste it: through sh, with the built `chime` first on PATH.
    static func run(_ command: String, in session: TestSession) throws -> ProcessResult {
        try session.run(["sh", "-c", "PATH=\"\(binDirectory.path):$PATH\"; " + command])
    }

    // MARK: - What the pages show

    /// The front page shows the commands of a first day: schedule, look, cancel one, press,
    /// read what happened, and the same from a program.
    @Test func readmeShowsTheEverydayCommands() throws {
        let commands = try Self.commands(in: "README.md")
        for command in ["chime add", "chime list", "chime show", "chime cancel", "chime act", "chime log", "chime notify",
                        "gdbus call", "dbus-send", "Scheduler1.Schedule"] {
            #expect(commands.contains { $0 == command || $0.contains(command + " ") }, "README shows \(command)")
        }
    }

    @Test(arguments: [
        ("docs/developing.md", ["make demo", "make check", "make test"]),
        ("docs/commands.md", ["chime notify", "chime log"]),
        ("docs/scheduling.md", ["chime add", "chime list", "chime show", "chime edit", "chime next", "chime skip", "chime snooze"]),
        ("docs/buttons.md", ["chime badge", "--category reminder"]),
        ("docs/places.md", ["--near", "--on-network"]),
        ("docs/calendars.md", ["chime import", "chime export"]),
        ("docs/dbus.md", ["gdbus call", "dbus-send", "Scheduler1.Schedule", "Scheduler1.ScheduleSimple"]),
        ("docs/troubleshooting.md", ["chime doctor"]),
    ])
    func pageShowsItsCommands(page: String, shown: [String]) throws {
        let commands = try Self.commands(in: page)
        for command in shown {
            #expect(commands.contains { $0 == command || $0.contains(command + " ") }, "\(page) shows \(command)")
        }
    }

    // MARK: - Every command runs

    @Test(arguments: try ReadmeTests.examples())
    func commandSucceeds(example: Example) throws {
        let session = try TestSession()
        let result = try Self.run(example.command, in: session)
        #expect(result.status == 0, "\(example.command)\n\(result)")
        #expect(!result.stderr.contains("rror"), "\(result)")
        // What shows at once must reach the server.
        if example.command.contains("notify ") || example.command.contains("PresentNow") {
            _ = try session.waitForNotifyCalls(1)
        }
    }

    /// A page's commands pasted one after another, in a session where the reader had
    /// scheduled a reminder of their own: each succeeds, and the reader's reminder is still
    /// scheduled after the last. An example that cancels must cancel only what it made.
    @Test(arguments: try ReadmeTests.pagesWithExamples())
    func tourKeepsTheReadersReminder(page: String) throws {
        let session = try TestSession()
        let own = try session.add("Renew the passport", "Before the summer", "--at", "2031-04-01 09:00", "--repeat", "year",
                                  "--category", "reminder")
        for command in try Self.runnable(in: page) {
            let result = try Self.run(command, in: session)
            #expect(result.status == 0, "\(page): \(command)\n\(result)")
            #expect(!result.stderr.contains("rror"), "\(page): \(command)\n\(result)")
        }
        let kept = try session.listedJSON().first { $0["id"] as? String == own }
        #expect(kept?["state"] as? String == "scheduled", "\(page) left the reader's reminder \(String(describing: kept))")
        #expect(kept?["title"] as? String == "Renew the passport", "\(String(describing: kept))")
    }

    // MARK: - Links

    /// The anchor GitHub gives a heading: lower case, spaces to hyphens, and no punctuation
    /// but hyphens and underscores.
    static func anchor(of heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
        })
    }

    @Test(arguments: [
        ("Calendar files: `chime import` and `chime export`", "calendar-files-chime-import-and-chime-export"),
        ("Your own buttons: the config file", "your-own-buttons-the-config-file"),
        ("Apps in front and per-app settings", "apps-in-front-and-per-app-settings"),
        ("From UILocalNotification", "from-uilocalnotification"),
    ])
    func anchorsAreGitHubs(heading: String, anchor: String) {
        #expect(Self.anchor(of: heading) == anchor)
    }

    /// The anchors of a page's headings, outside code blocks; a repeated one gets -1, -2…
    static func anchors(in file: URL) throws -> Set<String> {
        var anchors: Set<String> = []
        var inBlock = false
        for line in try text(of: file).split(separator: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inBlock.toggle() }
            guard !inBlock, let heading = line.wholeMatch(of: /#{1,6} +(.+)/)?.1 else { continue }
            let base = anchor(of: String(heading))
            var candidate = base
            var count = 0
            while anchors.contains(candidate) {
                count += 1
                candidate = "\(base)-\(count)"
            }
            anchors.insert(candidate)
        }
        return anchors
    }

    /// The targets of a page's Markdown links, outside code blocks, but for web addresses.
    static func relativeLinks(in page: String) throws -> [String] {
        var links: [String] = []
        var inBlock = false
        for line in try text(of: page).split(separator: "\n") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") { inBlock.toggle() }
            guard !inBlock else { continue }
            links += line.matches(of: /\]\(([^)\s]+)\)/).map { String($0.1) }
                .filter { !$0.contains("://") && !$0.hasPrefix("mailto:") }
        }
        return links
    }

    @Test(arguments: try ReadmeTests.pages())
    func linksLeadSomewhere(page: String) throws {
        let file = packageRoot.appendingPathComponent(page)
        let links = try Self.relativeLinks(in: page)
        if page == "README.md" {
            // The front page leads to every page of the manual.
            for other in try Self.pages().dropFirst() {
                #expect(links.contains(other), "README.md links to \(other)")
            }
        }
        for link in links {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? file
                : file.deletingLastPathComponent().appendingPathComponent(parts[0]).standardizedFileURL
            guard FileManager.default.fileExists(atPath: target.path) else {
                Issue.record("\(page): \(link) leads to no file")
                continue
            }
            if parts.count == 2, target.pathExtension == "md" {
                #expect(try Self.anchors(in: target).contains(parts[1]), "\(page): \(link) names no heading of \(target.lastPathComponent)")
            }
        }
    }
}
