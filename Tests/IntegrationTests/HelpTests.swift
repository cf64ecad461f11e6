import Foundation
import Testing
import TestSupport

/// Every command's --help shows how to use it.
@Suite(.timeLimit(.minutes(10)))
struct HelpTests {
    /// Runs the built chime without a bus: help needs none.
    func chime(_ arguments: String...) throws -> ProcessResult {
        try Spawned([binDirectory.appendingPathComponent("chime").path] + arguments,
                    environment: ProcessInfo.processInfo.environment).finish()
    }

    /// The subcommands `chime --help` lists.
    func subcommands() throws -> [String] {
        let help = try chime("--help").stdout
        guard let start = help.range(of: "SUBCOMMANDS:\n") else { return [] }
        return help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            // A name is indented two spaces; a wrapped abstract, further.
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "help" }
    }

    @Test func everySubcommandsHelpHasAnExample() throws {
        let names = try subcommands()
        #expect(names.contains("log") && names.contains("notify") && names.contains("act") && names.count >= 9, "\(names)")
        for name in names {
            let result = try chime(name, "--help")
            #expect(result.status == 0, "\(name): \(result)")
            #expect(result.stdout.contains("Example"), "chime \(name) --help shows no example:\n\(result.stdout)")
        }
    }

    @Test func theRootHelpHasExamplesAndExitStatuses() throws {
        let help = try chime("--help").stdout
        #expect(help.contains("Examples:"), "\(help)")
        for status in ["0 ", "1 ", "64", "69"] { #expect(help.contains("  \(status)"), "\(help)") }
    }

    @Test func theRootHelpSaysHowJSONIsPrinted() throws {
        let help = try chime("--help").stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("one JSON document, indented two spaces as jq prints it: an array for lists, an object otherwise"), "\(help)")
    }

    @Test func everyJSONFlagSaysWhatItPrints() throws {
        for name in try subcommands() {
            let help = try chime(name, "--help").stdout
            guard help.contains("--json") else { continue }
            #expect(help.contains("--json prints") || help.contains("Print JSON"), "chime \(name) --help: \(help)")
        }
    }

    /// Read in a narrow terminal: the usage comes first, and every example is one whole
    /// command on its line, so that pasting it runs what it shows.
    @Test func usageComesFirstAndExamplesPasteWhole() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = "50"
        for name in try subcommands() {
            let help = try Spawned([binDirectory.appendingPathComponent("chime").path, name, "--help"], environment: environment)
                .finish().stdout
            let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.first?.hasPrefix("USAGE: chime \(name)") == true, "chime \(name) --help begins: \(lines.prefix(2))")
            guard let start = lines.firstIndex(where: { $0 == "Examples:" || $0 == "Example:" }) else {
                Issue.record("chime \(name) --help shows no example")
                continue
            }
            let examples = lines[(start + 1)...].prefix { !$0.isEmpty }
            #expect(!examples.isEmpty, "chime \(name)")
            for example in examples {
                // A line ArgumentParser wrapped goes on at the margin, without "chime".
                #expect(example.hasPrefix("  ") && example.contains("chime \(name)"),
                        "chime \(name) --help: an example is cut or not a command: '\(example)'")
                #expect(example.filter { $0 == "\"" }.count % 2 == 0, "chime \(name) --help: unbalanced quotes in '\(example)'")
            }
        }
        let usage = try Spawned([binDirectory.appendingPathComponent("chime").path, "help", "add"], environment: environment).finish()
        #expect(usage.stdout.hasPrefix("USAGE: chime add"), "\(usage)")
    }

    /// A user's help speaks of their reminders, not of the iOS API Chime's model comes from
    /// (docs/dbus.md maps one to the other for programmers).
    @Test func helpSpeaksNoIOSJargon() throws {
        for name in try subcommands() + [""] {
            let help = try (name.isEmpty ? chime("--help") : chime(name, "--help")).stdout
            for word in ["UILocalNotification", "iOS", "alertLaunchImage", "alertBody", "fireDate", "CLRegion"] {
                #expect(!help.contains(word), "chime \(name) --help says \(word)")
            }
        }
    }

    /// A usage error points at the help of the command it was typed for.
    @Test func aUsageErrorPointsAtItsCommandsHelp() throws {
        let result = try chime("cancel")
        #expect(result.status == 64 && result.stderr.hasSuffix(" See 'chime cancel --help'.\n"), "\(result)")
        let unknown = try chime("lsit")
        #expect(unknown.status == 64 && unknown.stderr.hasSuffix(" See 'chime --help'.\n"), "\(unknown)")
    }
}
