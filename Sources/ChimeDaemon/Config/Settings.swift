import ChimeCore
import FoundationEssentials
import Logging

/// The user's settings as every part of chimed reads them: the config in force (its
/// categories, the per-app switches, its errors) and the words notifications say in
/// chimed's language. ``Daemon`` builds it and reads the file again on SIGHUP; the parts
/// hold it and read it when they decide, so a reload reaches all of them at once.
final class Settings {
    private(set) var config: ConfigInForce
    /// What notifications say, in chimed's language. Lazy: the catalogue search is not on
    /// the way to the first answer.
    private(set) lazy var texts = ShownTexts(logger: logger)
    private let logger: Logger

    init(path: String = Config.defaultURL.path, logger: Logger) {
        config = ConfigInForce(path: path)
        self.logger = logger
    }

    /// Takes a new reading of the config file (``ConfigInForce/take(_:)``).
    func take(_ reading: Result<Config, ConfigError>) {
        config.take(reading)
    }

    /// Named sets of buttons: the built-in ones and the user's config.
    var categories: [String: Category] { config.categories }

    /// The user's switches for the app `alert` speaks for; all on without one.
    func app(of alert: Alert) -> AppSettings {
        alert.desktopEntry.flatMap { config.apps[$0] } ?? AppSettings()
    }

    /// The alert as shown: in chimed's language, with its category's buttons; an unknown
    /// category still shows, without them.
    func expand(_ alert: Alert) -> Alert {
        let alert = texts.translate(alert)
        return alert.withActions(of: shownCategory(of: alert))
    }

    /// The category `alert` names, its labels in chimed's language; nil for none or an unknown one.
    func shownCategory(of alert: Alert) -> Category? {
        guard let name = alert.category else { return nil }
        guard let category = categories[name] else {
            logger.debug("Category '\(name)' has no actions here; passed to the server as a hint only.")
            return nil
        }
        return texts.labelled(category)
    }

    /// A press of `key` on `alert`, with the button as shown and what its category says it does.
    func press(id: String, key: String, alert: Alert, kind: StoredDelivery.Kind) -> Press {
        let button = expand(alert).allActions.first { $0.key == key }
        let handler = alert.category.flatMap { categories[$0] }?.allDefinitions.first { $0.key == key }?.handler
        return Press(id: id, key: key, alert: alert, kind: kind, button: button, handler: handler)
    }
}
