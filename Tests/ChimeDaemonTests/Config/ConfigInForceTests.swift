import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// The config as chimed uses it: what a new request's category is checked against, and
/// what a reading that failed leaves in force.
struct ConfigInForceTests {
    private func reading(_ text: String) throws -> Result<Config, ConfigError> {
        let directory = try ConfigTests.Directory()
        return Config.load(from: try directory.write(text))
    }

    private func refusal(_ config: ConfigInForce, _ name: String) -> String? {
        do throws(FieldError) {
            try config.check(category: name)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func anUnknownCategoryIsRefusedWithTheKnownOnesAndAGuess() throws {
        var config = ConfigInForce(path: "/home/u/.config/chime/config")
        config.take(try reading("[Category todo]\nActions=complete;\n"))
        #expect(refusal(config, "reminders") == "category: 'reminders' is neither built in nor in the config (known: reminder, "
            + "todo; standard ones such as email.arrived are passed on to the server); did you mean 'reminder'?")
        #expect(refusal(config, "work") == "category: 'work' is neither built in nor in the config (known: reminder, todo; "
            + "standard ones such as email.arrived are passed on to the server).")
    }

    @Test(arguments: ["reminder", "todo", "email.arrived", "device", "call.incoming", "x-org.example.build", ""])
    func knownStandardAndVendorCategoriesPass(name: String) throws {
        var config = ConfigInForce(path: "config")
        config.take(try reading("[Category todo]\n"))
        #expect(refusal(config, name) == nil)
    }

    /// A category the file defines with an error is named with that error, not as unknown.
    @Test func aCategoryLeftOutForItsErrorIsRefusedWithIt() throws {
        var config = ConfigInForce(path: "config")
        let read = try reading("[Category broken]\nActions=complete;complete;\n")
        config.take(read)
        let error = try #require(try read.get().errors.first)
        #expect(refusal(config, "broken") == "category: 'broken' has an error in the config, so it is not used: \(error)")
        #expect(config.errors == [error.description])
    }

    /// Which names a file defines is not known while it could never be read: none is
    /// refused then. After a good reading, a failed one keeps it, and its names.
    @Test func aFileThatCannotBeReadLeavesTheLastGoodReading() throws {
        var config = ConfigInForce(path: "config")
        config.take(try reading("this line is not a key\n"))
        #expect(config.categories == Category.builtIn)
        #expect(refusal(config, "todo") == nil)
        #expect(config.errors.count == 1)
        #expect(config.errors[0].hasSuffix(" Using the built-in categories only."), "\(config.errors)")

        config.take(try reading("[Category todo]\n"))
        #expect(config.errors.isEmpty)
        config.take(try reading("[Category todo]\nthis line is not a key\n"))
        #expect(config.categories["todo"] != nil)
        #expect(refusal(config, "work") != nil)
        #expect(config.errors.count == 1)
        #expect(config.errors[0].contains(":2: Not a key file: "), "\(config.errors)")
        #expect(config.errors[0].hasSuffix(" Keeping the last good config."), "\(config.errors)")
    }
}
