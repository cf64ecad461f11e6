import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// The config as chimed uses it: what a reading that failed leaves in force, and the
/// errors Status reports.
struct ConfigInForceTests {
    private func reading(_ text: String) throws -> Result<Config, ConfigError> {
        let directory = try ConfigTests.Directory()
        return Config.load(from: try directory.write(text))
    }

    @Test func theErrorsOfAReadingAreReportedEachWithFileAndLine() throws {
        var config = ConfigInForce(path: "config")
        let read = try reading("[Category broken]\nActions=complete;complete;\n[Category todo]\n")
        config.take(read)
        #expect(config.errors == (try read.get().errors.map(\.description)))
        #expect(config.errors.count == 1)
        #expect(config.categories["todo"] != nil)
    }

    /// After a good reading, a failed one keeps it; before any, the built-in categories
    /// are in force.
    @Test func aFileThatCannotBeReadLeavesTheLastGoodReading() throws {
        var config = ConfigInForce(path: "config")
        config.take(try reading("this line is not a key\n"))
        #expect(config.categories == Category.builtIn)
        #expect(config.errors.count == 1)
        #expect(config.errors[0].hasSuffix(" Using the built-in categories only."), "\(config.errors)")

        config.take(try reading("[Category todo]\n"))
        #expect(config.errors.isEmpty)
        config.take(try reading("[Category todo]\nthis line is not a key\n"))
        #expect(config.categories["todo"] != nil)
        #expect(config.errors.count == 1)
        #expect(config.errors[0].contains(":2: Not a key file: "), "\(config.errors)")
        #expect(config.errors[0].hasSuffix(" Keeping the last good config."), "\(config.errors)")
    }
}
