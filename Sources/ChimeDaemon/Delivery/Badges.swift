import ChimeAPI
import ChimeCore
import DBus
import Logging

/// Apps' icon badges (applicationIconBadgeNumber): stored, and announced to docks with
/// the Unity LauncherEntry signal (`count`, `count-visible`) for the app's desktop entry.
final class Badges {
    static let launcherEntry = InterfaceName(rawValue: "com.canonical.Unity.LauncherEntry")!
    static let update = MemberName(rawValue: "Update")!

    private let connection: Connection
    private let store: Store
    private let commits: CommitQueue
    private let logger: Logger

    init(connection: Connection, store: Store, commits: CommitQueue, logger: Logger) {
        self.connection = connection
        self.store = store
        self.commits = commits
        self.logger = logger
    }

    /// A desktop entry id as docks know it: without `.desktop`, and never empty.
    static func desktopEntry(_ text: String) throws(DBusError) -> String {
        let entry = text.hasSuffix(".desktop") ? String(text.dropLast(8)) : text
        guard !entry.isEmpty, !entry.contains("/") else {
            throw .invalidArgs("desktopEntry: '\(text)' is not a desktop entry id such as org.gnome.Calendar.")
        }
        return entry
    }

    /// The app's badge as Chime last set it; 0 when it never did.
    func count(of entry: String) throws(DBusError) -> Int {
        Int(try commits.read { () throws(StoreError) in try store.meta("badge:" + entry) } ?? "") ?? 0
    }

    /// A notification's badge number takes effect when it shows.
    func apply(of alert: Alert) {
        guard let count = alert.badge else { return }
        guard let entry = alert.desktopEntry else {
            logger.debug("A badge needs desktopEntry, the app whose icon carries it; none given.")
            return
        }
        set(entry, count) { _ in }
    }

    /// Complete lowers the badge of the notification's app by one.
    func lower(of alert: Alert) {
        if alert.badge != nil, let entry = alert.desktopEntry, let count = try? count(of: entry), count > 0 {
            set(entry, count - 1) { _ in }
        }
    }

    /// Stores the app's badge and tells docks; `then` gets the error when either failed.
    func set(_ entry: String, _ count: Int, then: @escaping (DBusError?) -> Void) {
        commits.stage({ db in try self.store.setMeta("badge:" + entry, String(count), in: db) }, done: { [unowned self] result in
            if case .failure(let error) = result {
                self.logger.error("Cannot store the badge of \(entry): \(error)")
                return then(.refused("The badge of \(entry) was not set", error))
            }
            do {
                try self.connection.emit(path: ChimeBus.path, interface: Self.launcherEntry, member: Self.update, arguments: [
                    .string("application://\(entry).desktop"),
                    .variantDictionary([("count", .int64(Int64(count))), ("count-visible", .bool(count > 0))]),
                ])
                then(nil)
            } catch {
                self.logger.error("Cannot announce the badge of \(entry): \(error)")
                then(.failed("The badge of \(entry) is stored, but docks could not be told: \(error)"))
            }
        })
    }
}
