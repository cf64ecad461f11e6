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
}
