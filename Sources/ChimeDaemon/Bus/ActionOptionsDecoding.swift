import ChimeAPI
import ChimeCore
import DBus

/// The options of ad-hoc buttons as a bus caller gives them: `actionOptions` (`a{sa{sv}}`,
/// action key → `activationMode` s, `authenticationRequired` b, `destructive` b, `icon` s)
/// in the typed form, `actionOption.KEY` = `foreground;authenticationRequired;destructive;icon=NAME`
/// in the string form.
///
/// They apply to the buttons the same request lists in `actions`: a category's buttons
/// take theirs from the user's config, as their handlers do.
enum ActionOptionsDecoding {
    static let key = NotificationKey.actionOptions.rawValue
    static let stringPrefix = "actionOption."

    /// Decodes the typed `actionOptions` value.
    static func typed(_ value: Value) throws(FieldError) -> [String: ActionOptions] {
        guard let entries = value.stringKeyedEntries else {
            throw FieldError(key, "must be a dictionary a{sa{sv}}: action key to its options.")
        }
        try RequestLimits.Counted.actions.check(entries.count)
        var result: [String: ActionOptions] = [:]
        for (action, wrapped) in entries {
            let field = "\(key).\(action)"
            guard let fields = wrapped.unwrapped.stringKeyedEntries else {
                throw FieldError(field, "must be a dictionary a{sv} of \(ActionOptions.names.joined(separator: ", ")).")
            }
            var options = ActionOptions()
            for (name, raw) in fields {
                let value = raw.unwrapped
                switch name {
                case "activationMode":
                    guard let text = value.stringValue else { throw FieldError("\(field).\(name)", "must be a string, background or foreground.") }
                    options.activationMode = try mode(text, field: "\(field).\(name)")
                case "authenticationRequired", "destructive":
                    guard let on = value.boolValue else { throw FieldError("\(field).\(name)", "must be a boolean, not type '\(value.signature)'.") }
                    if name == "destructive" { options.destructive = on } else { options.authenticationRequired = on }
                case "icon":
                    guard let text = value.stringValue else { throw FieldError("\(field).\(name)", "must be a string, an icon-theme name.") }
                    options.icon = try icon(text, field: "\(field).\(name)")
                default:
                    throw FieldError("\(field).\(name)", "is not an action option; they are \(ActionOptions.names.joined(separator: ", ")).")
                }
            }
            result[action] = options
        }
        return result
    }

    /// Decodes `actionOption.KEY`'s words, separated by `;` or `,`: `background` or
    /// `foreground`, `authenticationRequired`, `destructive`, `icon=NAME`.
    static func words(_ text: String, action: String) throws(FieldError) -> ActionOptions {
        let field = stringPrefix + action
        var options = ActionOptions()
        for word in text.split(whereSeparator: { $0 == ";" || $0 == "," }).map({ $0.trimmingSpaces }) {
            switch word {
            case "": continue
            case "authenticationRequired": options.authenticationRequired = true
            case "destructive": options.destructive = true
            case let word where word.hasPrefix("icon="): options.icon = try icon(String(word.dropFirst(5)), field: field)
            default: options.activationMode = try mode(word, field: field)
            }
        }
        return options
    }

    /// Sets the options on the buttons of `actions` they name; a name that is none of them is an error.
    static func apply(_ options: [String: ActionOptions], to actions: inout [Action]) throws(FieldError) {
        for (name, value) in options.sorted(by: { $0.key < $1.key }) {
            guard let index = actions.firstIndex(where: { $0.key == name }) else {
                let field = actions.isEmpty ? "" : " (\(actions.map(\.key).joined(separator: ", ")))"
                throw FieldError("\(key).\(name)", "names no button of this notification's actions\(field); a category's buttons take "
                    + "their options from the config.")
            }
            actions[index] = Action(key: name, label: actions[index].label, options: value)
        }
    }

    private static func mode(_ text: String, field: String) throws(FieldError) -> ActionOptions.ActivationMode {
        guard let mode = ActionOptions.ActivationMode(rawValue: text) else {
            throw FieldError(field, "'\(text)' is not an action option; use background or foreground, authenticationRequired, destructive, icon=NAME.")
        }
        return mode
    }

    private static func icon(_ text: String, field: String) throws(FieldError) -> String {
        if let problem = ActionOptions.iconProblem(text) { throw FieldError(field, problem) }
        return text
    }

    /// The options of `actions` that are not the defaults, as `Get` and `List` describe them.
    static func encode(_ actions: [Action]) -> Value? {
        let entries: [(String, Value)] = actions.compactMap { action in
            guard let options = action.options else { return nil }
            return (action.key, .variantDictionary([
                ("activationMode", .string(options.activationMode.rawValue)),
                ("authenticationRequired", .bool(options.authenticationRequired)),
                ("destructive", .bool(options.destructive)),
            ] + (options.icon.map { [("icon", .string($0))] } ?? [])))
        }
        guard !entries.isEmpty else { return nil }
        return .dictionary(key: "s", value: "a{sv}", entries.map { DictionaryEntry(key: .string($0.0), value: $0.1) })
    }
}
