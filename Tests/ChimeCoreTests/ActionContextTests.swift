import ChimeCore
import Foundation
import Testing

/// Which buttons a server is shown, in which order, and how options are stored.
struct ActionContextTests {
    static let delete = ActionDefinition(key: "delete", label: "Delete", handler: .announce, options: ActionOptions(destructive: true))
    static let complete = Category.reminder.actions[0]
    static let remind = Category.reminder.actions[1]

    func keys(_ alert: Alert) -> [String] { alert.actions.map(\.key) }

    @Test func destructiveButtonsGoLastKeepingTheirOrder() {
        var alert = Alert(title: "T")
        alert.actions = [Action(key: "x", label: "X", options: ActionOptions(destructive: true)), Action(key: "y", label: "Y")]
        let category = Category(name: "c", actions: [Self.delete, Self.complete, Self.remind])
        #expect(keys(alert.shown(in: .default, category: category)) == ["y", "complete", "remind", "x", "delete"])
    }

    @Test func theMinimalContextIsMinimalActionsOrTheFirstTwo() {
        let alert = Alert(title: "T")
        let named = Category(name: "c", actions: [Self.complete, Self.delete], minimalActions: [Self.delete, Self.remind])
        #expect(keys(alert.shown(in: .minimal, category: named)) == ["remind", "delete"])
        // A button only the minimal context lists is not shown in the default one.
        #expect(keys(alert.shown(in: .default, category: named)) == ["complete", "delete"])
        let unnamed = Category(name: "c", actions: [Self.delete, Self.complete, Self.remind])
        #expect(keys(alert.shown(in: .minimal, category: unnamed)) == ["complete", "remind"])
    }

    @Test func onlyATransientNotificationIsMinimal() {
        var alert = Alert(title: "T")
        #expect(ActionContext(for: alert) == .default)
        alert.hints = [.transient(true)]
        #expect(ActionContext(for: alert) == .minimal)
        alert.hints = [.transient(false)]
        #expect(ActionContext(for: alert) == .default)
    }

    @Test func optionsAreStoredOnlyWhenSetAndOldRowsDecode() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let plain = try encoder.encode(Action(key: "a", label: "A", options: ActionOptions()))
        #expect(String(decoding: plain, as: UTF8.self) == #"{"key":"a","label":"A"}"#)
        let old = try JSONDecoder().decode(Action.self, from: Data(#"{"key":"a","label":"A"}"#.utf8))
        #expect(old.resolvedOptions == ActionOptions())
        let partial = try JSONDecoder().decode(Action.self, from: Data(#"{"key":"a","label":"A","options":{"destructive":true}}"#.utf8))
        #expect(partial.resolvedOptions == ActionOptions(destructive: true))
    }
}
