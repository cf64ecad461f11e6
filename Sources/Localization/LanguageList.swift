import CGettext
import Glibc

/// The languages gettext looks messages up in, found as gettext finds them.
///
/// gettext takes the locale of `LC_MESSAGES` (set from `LC_ALL`, `LC_MESSAGES` or `LANG`
/// by `setlocale`): in the C or POSIX locale it translates nothing, whatever `LANGUAGE`
/// says; otherwise `LANGUAGE`, a `:`-separated list, comes first when it is set, and the
/// locale's own name when it is not.
public enum LanguageList {
    /// The list for this process, after ``Localization/start()``.
    public static func current() -> [String] {
        let locale = setlocale(cgettext_LC_MESSAGES, nil).map { String(cString: $0) } ?? "C"
        let language = getenv("LANGUAGE").map { String(cString: $0) }
        return of(locale: locale, language: language)
    }

    /// The list for a `LC_MESSAGES` locale and a `LANGUAGE` value.
    static func of(locale: String, language: String?) -> [String] {
        guard locale != "C", locale != "POSIX" else { return [] }
        let listed = (language ?? "").split(separator: ":").map(String.init)
        return listed.isEmpty ? [locale] : listed
    }

    /// The folder names one language is found under, most specific first, as gettext
    /// tries them: `de_DE.UTF-8@euro`, `de_DE.utf8@euro`, `de_DE@euro`, `de_DE`, `de@euro`, `de`.
    public static func variants(of name: String) -> [String] {
        var rest = Substring(name)
        var modifier: Substring = ""
        if let at = rest.firstIndex(of: "@") {
            modifier = rest[at...]
            rest = rest[..<at]
        }
        var codeset: Substring = ""
        if let dot = rest.firstIndex(of: ".") {
            codeset = rest[rest.index(after: dot)...]
            rest = rest[..<dot]
        }
        let language = String(rest.prefix { $0 != "_" })
        // A name that would climb out of the folder is no language.
        guard !language.isEmpty, !name.contains("/") else { return [] }
        let territory = String(rest.dropFirst(language.count))
        let at = String(modifier)
        let normalized = String(codeset.lowercased().filter { $0.isLetter || $0.isNumber })
        var names: [String] = []
        for name in [
            language + territory + (codeset.isEmpty ? "" : "." + codeset) + at,
            language + territory + (normalized.isEmpty ? "" : "." + normalized) + at,
            language + territory + at, language + territory, language + at, language,
        ] where !names.contains(name) {
            names.append(name)
        }
        return names
    }
}
