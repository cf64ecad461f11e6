import Testing
@testable import chime

/// A first word that names no command is said to be one, with the command it was likely meant to be.
struct CommandNamesTests {
    @Test(arguments: [
        (["lsit"], "Unknown command 'lsit'. Did you mean 'list'?"),
        (["ad", "T", "--in", "1h"], "Unknown command 'ad'. Did you mean 'add'?"),
        (["help", "nosuch"], "Unknown command 'nosuch'"),
        (["help", "snoze"], "Unknown command 'snoze'. Did you mean 'snooze'?"),
        (["Backup done"], "Unknown command 'Backup done'"),
    ])
    func anUnknownCommandIsNamed(arguments: [String], sentence: String) {
        #expect(Chime.unknownCommand(in: arguments) == sentence)
    }

    @Test(arguments: [[], ["list"], ["help"], ["help", "add"], ["help", "--help"], ["--version"], ["-h"], ["notify", "lsit"]])
    func aKnownCommandOrAnOptionIsLeftToArgumentParser(arguments: [String]) {
        #expect(Chime.unknownCommand(in: arguments) == nil)
    }

    @Test func everyCommandIsKnownByTheNameItIsTypedAs() {
        #expect(Set(Chime.commandNames).isSuperset(of: ["notify", "add", "edit", "snooze", "list", "show", "cancel", "next", "skip", "act",
                                                        "badge", "log", "doctor", "import", "export", "help"]))
    }

    @Test(arguments: [
        (["add", "T"], "add"), (["calendar", "add", "https://x.org/"], "calendar add"), (["calendar", "nosuch"], "calendar"),
        (["calendar"], "calendar"), (["lsit"], nil), ([], nil),
    ])
    func aUsageErrorPointsAtTheHelpOfTheCommandTyped(arguments: [String], command: String?) {
        #expect(Chime.typedCommand(in: arguments) == command)
    }
}
