import Testing
@testable import chime

/// chimed's refusals name D-Bus keys; chime says them with the option as it was typed.
struct TypedOptionTests {
    static let category = TypedOption(key: "category", names: ["-c", "--category"], value: "reminders")

    @Test(arguments: [
        (["chime", "notify", "-c", "reminders", "Tea"], "-c"),
        (["chime", "notify", "--category", "reminders", "Tea"], "--category"),
        (["chime", "notify", "--category=reminders", "Tea"], "--category"),
        // Bundled short options are not taken apart: the long name is said.
        (["chime", "notify", "-pc", "reminders", "Tea"], "--category"),
    ])
    func theOptionIsSaidAsTyped(arguments: [String], spelling: String) {
        #expect(Self.category.typed(in: arguments) == spelling)
    }

    @Test func theKeyAndQuotedValueBecomeTheOption() {
        let arguments = ["chime", "notify", "-c", "reminders", "Tea"]
        #expect(Self.category.inUsersWords("category: 'reminders' is neither built in nor in the config.", arguments: arguments)
            == "-c reminders is neither built in nor in the config.")
        #expect(Self.category.inUsersWords("category: must be a string.", arguments: arguments) == "-c reminders: must be a string.")
        #expect(Self.category.inUsersWords("urgency: 'loud' is not low, normal or critical.", arguments: arguments)
            == "urgency: 'loud' is not low, normal or critical.")
    }
}
