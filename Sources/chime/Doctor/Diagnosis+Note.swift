import Localization

extension Diagnosis {
    /// A warning, problem or fallback in the session's language, with its English form:
    /// `chime doctor --json` gives the English one, which scripts match and which never
    /// changes with the language.
    struct Note {
        /// The sentence for `--json`.
        var english: String
        /// The sentence for people.
        var text: String

        /// `words`, said once in English and once in the session's language.
        init(_ words: () -> String) {
            self.init(english: Localization.untranslated(words), text: words())
        }

        /// A sentence whose two forms are made apart (``InterfaceMismatch`` keeps both).
        init(english: String, text: String) {
            self.english = english
            self.text = text
        }
    }
}
