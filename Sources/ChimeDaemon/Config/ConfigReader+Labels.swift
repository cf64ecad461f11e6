import ChimeCore
import FoundationEssentials

/// Labels in several languages: `Label[de]=…` beside `Label=` in an `[Action KEY]` group
/// (GKeyFile's locale strings), and groups that only relabel a built-in button.
///
/// Every translation is kept, not only the one for chimed's language now: the label is
/// picked when the notification is shown (``ShownTexts/label(of:languages:)``), as GLib's
/// `g_key_file_get_locale_string` would pick it for the languages then.
extension ConfigReader {
    /// The `KEY[LOCALE]` keys of `group` for `key`.
    func localeKeys(_ group: String, of key: String) -> [String] {
        file.keys(group).filter { $0.hasPrefix(key + "[") && $0.hasSuffix("]") && $0.count > key.count + 2 }
    }

    /// `definition` with the `Label[LOCALE]=` translations of its group; nil (and an
    /// error) when one is empty or GLib cannot read it.
    mutating func translated(_ definition: ActionDefinition, group: String) -> ActionDefinition? {
        var definition = definition
        for key in localeKeys(group, of: "Label") {
            let locale = String(key.dropFirst("Label[".count).dropLast())
            guard let value = string(group, key) else { return nil }
            guard let label = value, !label.trimmingSpaces.isEmpty else {
                fail(group, key, "\(key) is empty: every button needs the text it shows.")
                return nil
            }
            definition.translations[locale] = label
        }
        return definition
    }

    /// A group for a built-in button (`[Action complete]`) may give it other labels and
    /// options (``ConfigReader/optionKeys``), and nothing else: what it does stays Chime's.
    mutating func relabelled(_ builtIn: ActionDefinition, group: String) -> ActionDefinition? {
        let allowed = Set(["Label"] + localeKeys(group, of: "Label")).union(Self.optionKeys)
        if let key = file.keys(group).first(where: { !allowed.contains($0) }) {
            fail(group, key, "'\(builtIn.key)' is a built-in action: its group may only relabel it (Label=, Label[LANG]=) and "
                + "set its options (\(Self.optionKeys.sorted().joined(separator: ", "))); choose another key for a button of your own.")
            return nil
        }
        guard let label = string(group, "Label") else { return nil }
        var definition = builtIn
        if let label {
            guard !label.trimmingSpaces.isEmpty else {
                fail(group, "Label", "Label is empty: every button needs the text it shows.")
                return nil
            }
            definition.label = label
        }
        return definition
    }
}

extension Config {
    /// Gives the built-in categories the built-in buttons as the config relabelled them.
    mutating func relabelBuiltIns(with actions: [String: ActionDefinition]) {
        for (name, category) in categories where Category.builtIn[name] == category {
            categories[name]?.actions = category.actions.map { actions[$0.key] ?? $0 }
        }
    }
}
