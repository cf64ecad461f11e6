import Foundation
import Testing
import TestSupport

/// Every command in README.md's `sh` blocks runs, on a private bus with a notification
/// server, and succeeds. `make` lines are what CI itself runs, so they are skipped here.
@Suite(.timeLimit(.minutes(10)))
struct ReadmeTests {
    static func commands() throws -> [String] {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        var commands: [String] = []
        var inBlock = false
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inBlock = !inBlock && line == "```sh"
                continue
            }
            guard inBlock, !line.trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            commands.append(String(line))
        }
        return commands
    }

    @Test func readmeShowsCommandsToRun() throws {
        let commands = try Self.commands()
        #expect(commands.contains { $0.hasPrefix("make demo") })
        #expect(commands.contains { $0.hasPrefix("make test") })
        #expect(commands.contains { $0.hasPrefix("gdbus call") })
        #expect(commands.contains { $0.hasPrefix("dbus-send") })
        for command in ["chime add", "chime list", "chime cancel", "chime show", "chime log", "chime doctor",
                        "Scheduler1.Schedule", "Scheduler1.ScheduleSimple"] {
            #expect(commands.contains { $0.contains(command + " ") }, "README shows \(command)")
        }
    }

    @Test(arguments: try ReadmeTests.commands().filter { !$0.hasPrefix("make ") })
    func commandSucceeds(command: String) throws {
        let session = try TestSession()
        // The README's `chime` is the built one: put it first on PATH.
        let result = try session.run(["sh", "-c", "PATH=\"\(binDirectory.path):$PATH\"; " + command])
        #expect(result.status == 0, "\(command)\n\(result)")
        #expect(!result.stderr.contains("rror"), "\(result)")
        // What shows at once must reach the server.
        if command.contains("notify ") || command.contains("PresentNow") {
            _ = try session.waitForNotifyCalls(1)
        }
    }
}
