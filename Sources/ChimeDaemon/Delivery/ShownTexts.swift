import ChimeCore
import FoundationEssentials
import Localization
import Logging

/// What a notification says on screen, in chimed's language, decided each time it is
/// shown: a language change after scheduling (chimed restarted with another `LANGUAGE`)
/// applies to what was scheduled before it.
///
/// Three kinds of words meet here: the app's (its title, body and labels, msgids of its
/// gettext domain when it gave `textDomain`), the user's (config labels, with their
/// `Label[LANG]=` translations) and Chime's own (the built-in buttons, "View"), which
/// are its msgids in the `chime` domain.
final class ShownTexts {
    private let logger: Logger
    /// What was last logged about each app domain's catalogue, so a missing or damaged
    /// one costs one log line, not one per notification, until it changes.
    private var reported: [String: CatalogueSearch.Result] = [:]

    init(logger: Logger) {
        self.logger = logger
    }

    /// The alert's own texts in chimed's language, and Chime's `default` label when the
    /// notification opens an app and names none (UILocalNotification's "View").
    func translate(_ alert: Alert) -> Alert {
        var alert = alert
        if let domain = alert.textDomain {
            let found = CatalogueSearch().bind(domain)
            report(found, for: domain)
            let text: (String) -> String
            if case .found = found {
                text = { Self.unescaped(CatalogueSearch.lookUp($0, in: domain)) }
            } else {
                text = Self.unescaped
            }
            alert.title = text(alert.title)
            alert.body = text(alert.body)
            alert.defaultAction = alert.defaultAction.map(text)
            for index in alert.actions.indices { alert.actions[index].label = text(alert.actions[index].label) }
        }
        if alert.defaultAction == nil, alert.desktopEntry != nil {
            alert.defaultAction = Self.chimeWord(Self.viewLabel)
        }
        return alert
    }

    /// The category with each button's label in chimed's language.
    func labelled(_ category: Category) -> Category {
        var category = category
        for index in category.actions.indices { category.actions[index].label = Self.label(of: category.actions[index]) }
        category.minimalActions = category.minimalActions.map { $0.map { definition in
            var definition = definition
            definition.label = Self.label(of: definition)
            return definition
        } }
        return category
    }

    /// A button's label: its config translation for the first of chimed's languages that
    /// has one (as GLib picks `Label[LANG]=`), else Chime's own translation of a built-in
    /// label, else the label as written.
    static func label(of definition: ActionDefinition, languages: [String] = Localization.languages) -> String {
        if !definition.translations.isEmpty {
            for language in languages {
                for name in LanguageList.variants(of: language) {
                    if let label = definition.translations[name] { return label }
                }
            }
        }
        if Config.builtInActions[definition.key]?.label == definition.label { return chimeWord(definition.label) }
        return definition.label
    }

    /// The label of a click on a notification that opens an app.
    static let viewLabel = localizable("View")

    /// One of Chime's msgids (a built-in label) in chimed's language.
    static func chimeWord(_ msgid: String) -> String {
        CatalogueSearch.lookUp(msgid, in: chimeDomain)
    }

    /// NSLocalizedString's rule: a literal `%` is written `%%`, translated or not.
    static func unescaped(_ text: String) -> String {
        text.contains("%%") ? text.replacing("%%", with: "%") : text
    }

    private func report(_ found: CatalogueSearch.Result, for domain: String) {
        guard reported[domain] != found else { return }
        reported[domain] = found
        switch found {
        case .found(_, let language, let file):
            logger.debug("Texts of domain '\(domain)' are translated to \(language) from \(file).")
        case .untranslated:
            break
        case .missing:
            logger.notice("No catalogue of text domain '\(domain)' for \(Localization.languages.joined(separator: ":")); its texts are shown untranslated.")
        case .damaged(let file, let reason):
            logger.warning("The catalogue \(file) of text domain '\(domain)' is damaged (\(reason)); its texts are shown untranslated.")
        }
    }
}

/// The `textDomain` key: the name of the app's catalogue file, `DOMAIN.mo`.
enum TextDomainField {
    /// Longer names are refused: a file name has at most 255 bytes, `.mo` included.
    static let maxBytes = 252

    /// The domain; nil for `""`, which means none.
    static func parse(_ text: String) throws(FieldError) -> String? {
        guard !text.isEmpty else { return nil }
        guard text.utf8.count <= maxBytes else {
            throw FieldError("textDomain", "is \(text.utf8.count) bytes long; a gettext domain may have at most \(maxBytes).")
        }
        guard CatalogueSearch.isPlainName(text) else {
            throw FieldError("textDomain", "'\(text)' is not a gettext domain: it names the file DOMAIN.mo, so it has no '/' "
                + "and does not start with '.'.")
        }
        return text
    }
}
