import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// The action options of the config: `ActivationMode=`, `AuthenticationRequired=`,
/// `Destructive=`, `Icon=` and `MinimalActions=`.
struct ConfigOptionsTests {
    private func load(_ text: String) throws -> Result<Config, ConfigError> {
        try ConfigTests.load(text)
    }

    static let todo = """
        [Category todo]
        Actions=complete;remind;delete;
        MinimalActions=complete;delete

        [Action complete]
        ActivationMode=foreground
        AuthenticationRequired=true

        [Action delete]
        Label=Delete
        Exec=/usr/bin/true
        ActivationMode=background
        AuthenticationRequired=false
        Destructive=true
        """

    @Test func readsEveryKey() throws {
        let config = try load(Self.todo).get()
        let complete = ActionDefinition(key: "complete", label: "Complete", handler: .complete,
                                        options: ActionOptions(activationMode: .foreground, authenticationRequired: true))
        let delete = ActionDefinition(key: "delete", label: "Delete", handler: .command(["/usr/bin/true"], timeout: 30),
                                      options: ActionOptions(destructive: true))
        let remind = ActionDefinition(key: "remind", label: "Remind in 30 minutes", handler: .snooze(.after(1800)))
        #expect(config.categories["todo"] == Category(name: "todo", actions: [complete, remind, delete], minimalActions: [complete, delete]))
        // The built-in button's options hold wherever it is listed, the built-in category included.
        #expect(config.categories["reminder"] == Category(name: "reminder", actions: [complete, remind]))
    }

    @Test func aBuiltInGroupMayRelabelAndSetOptionsTogether() throws {
        let config = try load("[Action complete]\nLabel=Done\nLabel[de]=Fertig\nDestructive=true\n").get()
        let complete = try #require(config.categories["reminder"]?.actions.first)
        #expect(complete == ActionDefinition(key: "complete", label: "Done", translations: ["de": "Fertig"], handler: .complete,
                                             options: ActionOptions(destructive: true)))
    }

    @Test func withoutOptionsEverythingIsAtItsDefault() throws {
        let config = try load("[Category c]\nActions=a;\n\n[Action a]\nLabel=A\n").get()
        #expect(config.categories["c"]?.actions.first?.options == ActionOptions())
        #expect(config.categories["c"]?.minimalActions == nil)
        #expect(config.categories["reminder"] == .reminder)
    }

    @Test func aRedefinedReminderKeepsItsOwnButtons() throws {
        let config = try load("""
            [Category reminder]
            Actions=complete;

            [Action complete]
            Destructive=true
            """).get()
        #expect(config.categories["reminder"]?.actions.map(\.options) == [ActionOptions(destructive: true)])
    }

    @Test func aMinimalActionMayBeABuiltInOutsideActions() throws {
        let config = try load("[Category c]\nActions=a;\nMinimalActions=remind\n\n[Action a]\nLabel=A\n").get()
        let category = try #require(config.categories["c"])
        #expect(category.minimalActions?.map(\.key) == ["remind"])
        #expect(category.allDefinitions.map(\.key) == ["a", "remind"])
    }

    @Test(arguments: [
        ("[Action a]\nLabel=A\nActivationMode=sideways\n", 3, "[Action a] ActivationMode is 'sideways'; it is background or foreground."),
        ("[Action a]\nLabel=A\n\nAuthenticationRequired=yes\n", 4, "[Action a] AuthenticationRequired is 'yes'; it is true or false."),
        ("[Action a]\nDestructive=1\nLabel=A\n", 2, "[Action a] Destructive is '1'; it is true or false."),
        ("[Action complete]\nLabel=Done\nExec=true\n", 3,
         "[Action complete] 'complete' is a built-in action: its group may only relabel it (Label=, Label[LANG]=) and set "
            + "its options (ActivationMode, AuthenticationRequired, Destructive, Icon); choose another key for a button of your own."),
        ("[Action remind]\nSnooze=5m\n", 2,
         "[Action remind] 'remind' is a built-in action: its group may only relabel it (Label=, Label[LANG]=) and set "
            + "its options (ActivationMode, AuthenticationRequired, Destructive, Icon); choose another key for a button of your own."),
        ("[Category c]\nActions=complete;remind;a;\nMinimalActions=complete;remind;a\n\n[Action a]\nLabel=A\n", 3,
         "[Category c] MinimalActions lists 3 buttons; the minimal context has room for at most 2."),
        ("[Category c]\nActions=complete;\nMinimalActions=a\n\n[Action a]\nLabel=A\n", 3,
         "[Category c] MinimalActions lists 'a', which is not in Actions: the minimal context shows some of the "
            + "category's buttons (or complete, remind)."),
        ("[Category c]\nActions=complete;\nMinimalActions=complete;complete\n", 3, "[Category c] MinimalActions lists 'complete' twice."),
        ("[Category c]\nMinimal=complete\n", 2, "[Category c] has no key 'Minimal': its keys are Actions, MinimalActions."),
    ])
    func badValuesNameTheLine(text: String, line: Int, message: String) throws {
        guard let error = (try load(text)).firstError else {
            Issue.record("Expected an error for \(text)")
            return
        }
        #expect(error.line == line)
        #expect(error.message == message)
    }
}
