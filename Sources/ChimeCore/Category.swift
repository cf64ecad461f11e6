import FoundationEssentials
import Localization

/// What pressing a button does, beyond announcing it on the bus.
public enum ActionHandler: Equatable, Sendable {
    /// The notification and its whole repeat series are done (UNNotificationAction "Complete").
    case complete
    /// A one-shot copy fires again after a time or at one; the series is not shifted.
    case snooze(SnoozeTime)
    /// A program from the user's config, run without a shell (argv), stopped after `timeout`.
    case command([String], timeout: TimeInterval)
    /// Only announced on the bus (ActionInvoked): the app that is listening handles it.
    case announce
}

/// A button a category offers: its key, its label, and what it does.
public struct ActionDefinition: Equatable, Sendable {
    /// The key reported back when it is pressed.
    public var key: String
    /// The label shown on it: a built-in's is Chime's msgid, translated when shown.
    public var label: String
    /// The label in other languages, by locale (`Label[de]=` in the config: `de`).
    public var translations: [String: String]
    /// What pressing it does.
    public var handler: ActionHandler
    /// How it behaves when pressed: foreground, authentication, destructive.
    public var options: ActionOptions

    /// A button with its key, label (and its translations), handler and options.
    public init(key: String, label: String, translations: [String: String] = [:], handler: ActionHandler,
                options: ActionOptions = ActionOptions()) {
        self.key = key
        self.label = label
        self.translations = translations
        self.handler = handler
        self.options = options
    }
}

/// A named set of buttons (UIUserNotificationCategory): a notification names one, and
/// its buttons and their handlers come from here, never from the caller.
public struct Category: Equatable, Sendable {
    /// The name notifications give in `category`.
    public var name: String
    /// Its buttons, in order: the default context (`Actions=`).
    public var actions: [ActionDefinition]
    /// The buttons where little room is known to exist (`MinimalActions=`, at most two);
    /// nil: the first two of the default context, as iOS does.
    public var minimalActions: [ActionDefinition]?

    /// A category named `name` offering `actions`, and `minimalActions` where room is short.
    public init(name: String, actions: [ActionDefinition], minimalActions: [ActionDefinition]? = nil) {
        self.name = name
        self.actions = actions
        self.minimalActions = minimalActions
    }

    /// Every button it defines: the default context's, then those only the minimal context lists.
    public var allDefinitions: [ActionDefinition] {
        actions + (minimalActions ?? []).filter { minimal in !actions.contains { $0.key == minimal.key } }
    }

    /// `reminder`: Complete, or Remind in 30 minutes.
    public static let reminder = Category(name: "reminder", actions: [
        ActionDefinition(key: "complete", label: localizable("Complete"), handler: .complete),
        ActionDefinition(key: "remind", label: localizable("Remind in 30 minutes"), handler: .snooze(.after(30 * 60))),
    ])

    /// The categories every installation has.
    public static let builtIn: [String: Category] = ["reminder": .reminder]
}

extension Alert {
    /// Every button it can be pressed with: its own, then its category's (a key it already
    /// has wins), with their options. Which of them a server is shown depends on the context.
    public func withActions(of category: Category?) -> Alert {
        guard let category else { return self }
        var alert = self
        for definition in category.allDefinitions where !alert.allActions.contains(where: { $0.key == definition.key }) {
            alert.actions.append(Action(key: definition.key, label: definition.label, options: definition.options))
        }
        return alert
    }
}
