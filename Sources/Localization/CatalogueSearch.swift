import CGettext
import Glibc

/// Finds a domain's catalogue where gettext apps keep them and binds the domain there.
///
/// `bindtextdomain` takes one folder per domain, but catalogues live in several: the
/// user's (`$XDG_DATA_HOME/locale`), the system's (`$XDG_DATA_DIRS/*/locale`), the
/// install prefix's (`<bin>/../share/locale`, for a `make install` under any `PREFIX`) and
/// the build's (`<bin>/locale`, made by `make locale`, so a binary run from `.build`
/// speaks German without being installed). So the search is done here: for each language
/// of ``LanguageList``, most wanted first, each folder in that order is asked for
/// `LANG/LC_MESSAGES/DOMAIN.mo`; the first catalogue found that is sound is the one bound.
public struct CatalogueSearch: Sendable {
    /// The folders searched, in order.
    public let folders: [String]
    /// The languages, most wanted first.
    public let languages: [String]

    /// The folders of this process's environment and executable, and its languages.
    public init() {
        Localization.sessionLocale
        self.init(folders: Self.defaultFolders(), languages: LanguageList.current())
    }

    /// A search of `folders` for `languages`.
    public init(folders: [String], languages: [String]) {
        self.folders = folders
        self.languages = languages
    }

    /// What a search found.
    public enum Result: Equatable, Sendable {
        /// The domain is bound to `folder`, whose `language` catalogue is at `file`.
        case found(folder: String, language: String, file: String)
        /// The session's language is C or POSIX: nothing is translated.
        case untranslated
        /// No folder has a catalogue for any of the languages.
        case missing
        /// The only catalogues found are damaged (`file`, and why): not used.
        case damaged(file: String, reason: String)
    }

    /// Searches for `domain`'s catalogue and binds the domain to its folder, in UTF-8.
    /// Without a sound one the domain is left unbound, and ``lookUp(_:in:)`` gives msgids.
    public func bind(_ domain: String) -> Result {
        let result = find(domain)
        if case .found(let folder, _, _) = result {
            bindtextdomain(domain, folder)
            bind_textdomain_codeset(domain, "UTF-8")
        }
        return result
    }

    /// The catalogue gettext would use for `domain`, without binding anything.
    public func find(_ domain: String) -> Result {
        guard !languages.isEmpty else { return .untranslated }
        guard Self.isPlainName(domain) else { return .missing }
        var damage: Result?
        for language in languages {
            for variant in LanguageList.variants(of: language) {
                for folder in folders {
                    let file = folder + "/" + variant + "/LC_MESSAGES/" + domain + ".mo"
                    switch CatalogueFile.check(file) {
                    case .sound: return .found(folder: folder, language: variant, file: file)
                    case .absent: continue
                    case .damaged(let reason): damage = damage ?? .damaged(file: file, reason: reason)
                    }
                }
            }
        }
        return damage ?? .missing
    }

    /// `text` looked up in `domain`, which ``bind(_:)`` found: the translation, or `text`.
    public static func lookUp(_ text: String, in domain: String) -> String {
        guard !text.isEmpty else { return text }
        return text.withCString { String(cString: dgettext(domain, $0)) }
    }

    /// A domain is a file name: no `/`, no leading `.`, not empty.
    public static func isPlainName(_ domain: String) -> Bool {
        !domain.isEmpty && !domain.hasPrefix(".") && !domain.contains("/") && !domain.utf8.contains(0)
    }

    // MARK: - Where catalogues are

    /// `$XDG_DATA_HOME/locale`, `$XDG_DATA_DIRS/*/locale`, then beside the executable.
    static func defaultFolders() -> [String] {
        func variable(_ name: String) -> String? {
            getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        // The base directory spec ignores relative paths in these variables.
        var bases: [String] = []
        if let home = variable("XDG_DATA_HOME"), home.hasPrefix("/") {
            bases.append(home)
        } else if let home = variable("HOME") {
            bases.append(home + "/.local/share")
        }
        bases += (variable("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":")
            .map(String.init).filter { $0.hasPrefix("/") }
        var folders = bases.map { $0 + "/locale" }
        if let bin = executableFolder() {
            folders.append(parent(of: bin) + "/share/locale")
            folders.append(bin + "/locale")
        }
        var unique: [String] = []
        for folder in folders where !unique.contains(folder) { unique.append(folder) }
        return unique
    }

    /// The folder of the running executable (through `/proc/self/exe`, links resolved).
    static func executableFolder() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return parent(of: path)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
