import Testing
@testable import chime

/// ArgumentParser's usage errors are recognised by their English text: each form must
/// still be what the ArgumentParser in use writes, or German users get English again.
struct UsageErrorTextTests {
    /// A command line for each form ``UsageErrorText`` knows.
    static let commandLines: [[String]] = [
        ["log", "--limt", "3"],
        ["log", "--frobnicate"],
        ["log", "--limit"],
        ["act"],
        ["act", "3kq9xw2m", "complete", "extra"],
        ["log", "--json=yes"],
        ["next", "--count", "many", "9:00"],
    ]

    /// The first line of what ArgumentParser says about `arguments`, as main.swift takes it.
    static func message(_ arguments: [String]) -> String {
        do {
            _ = try Chime.parseAsRoot(arguments)
            return ""
        } catch {
            return Chime.message(for: error).split(separator: "\n").first.map(String.init) ?? ""
        }
    }

    @Test(arguments: commandLines)
    func eachFormIsRecognisedAndItsEnglishIsUnchanged(arguments: [String]) {
        let message = Self.message(arguments)
        // Without a catalogue bound, the translation is the English msgid filled in.
        #expect(UsageErrorText.translation(of: message) == message, "\(arguments): \(message)")
    }

    @Test func theValuesBetweenThePiecesAreTaken() {
        #expect(UsageErrorText.match("Unknown option '--a'. Did you mean '--all'?", ["Unknown option '", "'. Did you mean '", "'?"])
            == ["--a", "--all"])
        #expect(UsageErrorText.match("Unknown option '--a'", ["Unknown option '", "'. Did you mean '", "'?"]) == nil)
        #expect(UsageErrorText.match("Unknown option ''", ["Unknown option '", "'"]) == [""])
        #expect(UsageErrorText.match("Unknown option '", ["Unknown option '", "'"]) == nil)
    }

    @Test func aMessageOfAnotherFormIsLeftAsItIs() {
        let message = "Missing required subcommand."
        #expect(UsageErrorText.translation(of: message) == nil)
        #expect(UsageErrorText.translated(message) == message)
    }
}
