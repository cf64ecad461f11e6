import ChimeCore

/// The action options of the config: `ActivationMode=`, `AuthenticationRequired=`,
/// `Destructive=` and `Icon=` in `[Action KEY]`, and `MinimalActions=` in `[Category NAME]`.
extension ConfigReader {
    /// The keys of `[Action KEY]` that set its options; a built-in's group may have these and its labels.
    static let optionKeys: Set<String> = ["ActivationMode", "AuthenticationRequired", "Destructive", "Icon"]
    /// The most buttons the minimal context may list, as in iOS.
    static let minimalLimit = 2

    /// `definition` with the options its group sets; nil (and an error) when one is not understood.
    mutating func withOptions(_ definition: ActionDefinition, group: String) -> ActionDefinition? {
        var definition = definition
        guard let options = options(group) else { return nil }
        definition.options = options
        return definition
    }

    /// A built-in button (`complete`, `remind`) as its `[Action KEY]` group changes it:
    /// other labels and its options; what it does stays Chime's.
    mutating func builtIn(_ key: String, group: String) -> ActionDefinition? {
        guard let builtIn = Config.builtInActions[key] else { return nil }
        return relabelled(builtIn, group: group).flatMap { translated($0, group: group) }.flatMap { withOptions($0, group: group) }
    }

    /// `category` with its `MinimalActions=`; nil (and an error) when that list is wrong.
    ///
    /// Each key must be a button of `Actions=` or a built-in: the minimal context shows fewer
    /// of the same buttons, so a key only it lists is most likely a typo. A key `Actions=`
    /// lists but that is `missing` is left out: its error is told at `Actions=`.
    mutating func withMinimalActions(_ category: Category, group: String, actions: [String: ActionDefinition],
                                     missing: Set<String> = []) -> Category? {
        guard let listed = stringList(group, "MinimalActions") else { return nil }
        guard let listed else { return category }
        var minimal: [ActionDefinition] = []
        for item in listed {
            let key = item.trimmingSpaces
            guard !key.isEmpty, !missing.contains(key) else { continue }
            if minimal.contains(where: { $0.key == key }) {
                fail(group, "MinimalActions", "MinimalActions lists '\(key)' twice.")
                return nil
            }
            let builtIn = Config.builtInActions[key].map { actions[key] ?? $0 }
            if let definition = category.actions.first(where: { $0.key == key }) ?? builtIn {
                minimal.append(definition)
            } else {
                fail(group, "MinimalActions", "MinimalActions lists '\(key)', which is not in Actions: the minimal context "
                    + "shows some of the category's buttons (or complete, remind).")
                return nil
            }
        }
        guard minimal.count <= Self.minimalLimit else {
            fail(group, "MinimalActions", "MinimalActions lists \(minimal.count) buttons; the minimal context has room for at most \(Self.minimalLimit).")
            return nil
        }
        var category = category
        category.minimalActions = minimal
        return category
    }

    // MARK: - Values

    private mutating func options(_ group: String) -> ActionOptions? {
        var options = ActionOptions()
        guard let mode = string(group, "ActivationMode") else { return nil }
        if let mode {
            guard let parsed = ActionOptions.ActivationMode(rawValue: mode) else {
                fail(group, "ActivationMode", "ActivationMode is '\(mode)'; it is background or foreground.")
                return nil
            }
            options.activationMode = parsed
        }
        guard let authentication = boolean(group, "AuthenticationRequired"), let destructive = boolean(group, "Destructive") else {
            return nil
        }
        options.authenticationRequired = authentication ?? false
        options.destructive = destructive ?? false
        guard let icon = string(group, "Icon") else { return nil }
        if let icon {
            if let problem = ActionOptions.iconProblem(icon) {
                fail(group, "Icon", "Icon \(problem)")
                return nil
            }
            options.icon = icon
        }
        return options
    }

    /// `.some(nil)` when absent; nil (and an error) unless the value is `true` or `false`,
    /// the key-file format's booleans.
    private mutating func boolean(_ group: String, _ key: String) -> Bool?? {
        guard let text = string(group, key) else { return nil }
        switch text {
        case nil: return .some(nil)
        case "true": return .some(true)
        case "false": return .some(false)
        case let other?:
            fail(group, key, "\(key) is '\(other)'; it is true or false.")
            return nil
        }
    }
}
