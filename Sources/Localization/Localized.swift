import CGettext
import Glibc

/// Chime's gettext domain: its own words, in `share/locale/LANG/LC_MESSAGES/chime.mo`.
public let chimeDomain = "chime"

/// Chime's word `msgid` in the session's language, its `%1$s`, `%2$d`… filled with `arguments`.
///
/// A literal, so that `make pot` finds every msgid (xgettext reads the first argument of
/// `localized`); Swift's interpolation cannot be a msgid, so a message with values is a
/// format string with positional arguments a translation may reorder.
public func localized(_ msgid: StaticString, _ arguments: any CustomStringConvertible...) -> String {
    guard !Localization.isOff else { return FormatString.fill("\(msgid)", arguments.map(\.description)) }
    Localization.start()
    let translated = "\(msgid)".withCString { String(cString: dgettext(chimeDomain, $0)) }
    return FormatString.fill(translated, arguments.map(\.description))
}

/// Chime's words for `count` things: `singular` or `plural` as the language's plural rule
/// picks (ngettext), filled like ``localized(_:_:)``.
public func pluralized(_ singular: StaticString, _ plural: StaticString, count: Int,
                       _ arguments: any CustomStringConvertible...) -> String {
    guard !Localization.isOff else { return FormatString.fill("\(count == 1 ? singular : plural)", arguments.map(\.description)) }
    Localization.start()
    let translated = "\(singular)".withCString { one in
        "\(plural)".withCString { many in
            String(cString: dngettext(chimeDomain, one, many, UInt(clamping: count)))
        }
    }
    return FormatString.fill(translated, arguments.map(\.description))
}

/// The process's language and where its catalogues are: set once, when first needed.
public enum Localization {
    /// Takes the session's language for messages from the environment (`LC_ALL`,
    /// `LC_MESSAGES`, `LANG`, then `LANGUAGE` for the list) and binds Chime's domain.
    ///
    /// Only `LC_MESSAGES` is set: numbers, dates and character classes stay in the C
    /// locale, which the rest of Chime (and GLib's key-file parser) is written for. The
    /// texts come in UTF-8 whatever `LC_CTYPE` says (`bind_textdomain_codeset`), since
    /// D-Bus and Swift strings both want it. Returns where Chime's catalogue was found.
    ///
    /// Done once, on the first call: ``localized(_:_:)`` makes it, so a command that says
    /// nothing (`chime notify` in a script's loop) never pays for the search, which costs
    /// more than the rest of its start-up together (generic metadata of the first string
    /// and array work, a dozen `open`s).
    @discardableResult
    public static func start() -> CatalogueSearch.Result {
        bound
    }

    private static let bound: CatalogueSearch.Result = CatalogueSearch().bind(chimeDomain)

    /// The session's message language taken from the environment (`setlocale`), once,
    /// before any catalogue search reads it: an app's domain may be searched before
    /// Chime's own (chimed shows a notification missed while it was stopped before its
    /// loop is first idle), and in the C locale the search finds nothing to translate.
    static let sessionLocale: Void = {
        setlocale(cgettext_LC_MESSAGES, "")
    }()

    /// Whether ``localized(_:_:)`` and ``pluralized(_:_:count:_:)`` give the English text now.
    @TaskLocal static var isOff = false

    /// What `body` returns, with Chime's words in English whatever the session's language:
    /// for a sentence that also goes into JSON output, which scripts read and which never
    /// changes with the language.
    public static func untranslated<T>(_ body: () throws -> T) rethrows -> T {
        try $isOff.withValue(true, operation: body)
    }

    /// The languages messages are looked up in, most wanted first; empty in the C locale.
    public static var languages: [String] {
        start()
        return LanguageList.current()
    }
}

/// Marks `msgid` for the template without translating it (gettext_noop): for words kept
/// in English and translated when shown, such as the built-in buttons' labels.
public func localizable(_ msgid: StaticString) -> String {
    "\(msgid)"
}
