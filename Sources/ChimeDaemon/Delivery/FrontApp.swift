import ChimeAPI
import ChimeCore
import DBus
import Logging

/// What the presenter needs to ask an app whether it is in front: the bus in chimed, a
/// fake in the in-process tests.
protocol FrontAppAsking: AnyObject {
    /// Asks `app` what Chime still does of notification `id`; `reply` gets the app's
    /// answer, or nil when there is none that counts (no owner, an error, no answer in
    /// time, garbage): then it shows as usual.
    func ask(_ app: String, id: String, alert: Alert, reply: @escaping (PresentationOptions?) -> Void)
}

/// Asks the app a notification speaks for, over ``ChimeAPI/Presenter1``, whether it
/// takes the notification itself (iOS's app in front).
///
/// The call goes to the app's well-known name with auto-start off, so an app that is
/// not running is neither started nor asked: the bus itself answers `NameHasNoOwner`
/// in one round trip, the price of a `NameHasOwner` look-up, and a running app is asked
/// with no second round trip. The loop never waits: the answer, an error or the
/// timeout comes back through it.
final class FrontApp: FrontAppAsking {
    private let connection: Connection
    private let logger: Logger

    init(connection: Connection, logger: Logger) {
        self.connection = connection
        self.logger = logger
    }

    func ask(_ app: String, id: String, alert: Alert, reply: @escaping (PresentationOptions?) -> Void) {
        // A desktop entry id need not be a bus name ("firefox" has no dot): such an app
        // cannot export the interface, so it is not asked.
        guard let name = BusName(rawValue: app), !app.hasPrefix(":"),
              let path = ObjectPath(rawValue: AppLauncher.objectPath(forBusName: app)) else { return reply(nil) }
        let message: Message
        do {
            message = try Message.methodCall(
                destination: name, path: path, interface: Presenter1.name, member: Presenter1.willPresent,
                arguments: [.string(id), .variantDictionary(NotificationEncoding.alertEntries(id, alert))])
        } catch {
            logger.warning("Notification \(id): cannot ask \(app) whether it is in front: \(error)")
            return reply(nil)
        }
        message.autoStart = false
        connection.call(message, timeoutMilliseconds: Presenter1.timeoutMilliseconds) { [logger] result in
            switch result {
            case .success(let answer):
                reply(Self.presentation(of: answer, app: app, id: id, logger: logger))
            case .failure(let error):
                Self.log(error, app: app, id: id, logger: logger)
                reply(nil)
            }
        }
    }

    /// The answer's words as a presentation; nil (and a log line) for garbage.
    static func presentation(of answer: Message, app: String, id: String, logger: Logger) -> PresentationOptions? {
        guard answer.signature == "as", let words = (try? answer.arguments())?.first?.arrayElements?.compactMap(\.stringValue) else {
            logger.warning("Notification \(id): \(app) answered WillPresent with (\(answer.signature)), not (as); shown as usual.")
            return nil
        }
        var presentation: PresentationOptions = []
        var unknown: [String] = []
        for word in words {
            if let known = PresentationOptions.words.first(where: { $0.0 == word }) { presentation.insert(known.1) } else { unknown.append(word) }
        }
        guard !unknown.isEmpty else { return presentation }
        let quoted = unknown.prefix(5).map { "'\($0.prefix(40))'" }.joined(separator: ", ")
        guard !presentation.isEmpty else {
            logger.warning("Notification \(id): \(app) answered WillPresent with \(quoted), none of alert, sound, badge; shown as usual.")
            return nil
        }
        logger.notice("Notification \(id): ignored \(quoted) in the WillPresent answer of \(app); it knows alert, sound, badge.")
        return presentation
    }

    private static func log(_ error: DBusError, app: String, id: String, logger: Logger) {
        switch error.name {
        case DBusError.nameHasNoOwnerName, DBusError.serviceUnknownName:
            logger.debug("Notification \(id): \(app) is not running; not asked.")
        case DBusError.unknownMethodName, "org.freedesktop.DBus.Error.UnknownObject", "org.freedesktop.DBus.Error.UnknownInterface":
            logger.debug("Notification \(id): \(app) does not export \(Presenter1.name); shown as usual.")
        case DBusError.noReplyName, "org.freedesktop.DBus.Error.Timeout":
            logger.warning("Notification \(id): \(app) did not answer WillPresent within \(Presenter1.timeoutMilliseconds) ms; shown as usual.")
        default:
            logger.warning("Notification \(id): \(app) answered WillPresent with \(error.name): \(error.message.withoutFullStop); shown as usual.")
        }
    }
}
