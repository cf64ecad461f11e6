import ChimeCore
import FoundationEssentials

/// The user's config: which buttons each category offers and what they do.
///
/// The file is `$XDG_CONFIG_HOME/chime/config` (default `~/.config/chime/config`), in the
/// freedesktop key-file format, the format of `.desktop` files:
///
/// ```
/// [Category todo]
/// Actions=complete;snooze;log;
///
/// [Action snooze]
/// Label=Snooze 5 minutes
/// Snooze=5m
///
/// [Action log]
/// Label=Log it
/// Exec=/usr/bin/logger;-t;chime;pressed
/// Timeout=10s
/// ```
///
/// - `[Category NAME]` defines the category a notification names with `category`.
///   `Actions=` lists its buttons in order, by key, separated by `;`: the built-in
///   `complete` (Complete: the notification and its repeats are done) and `remind`
///   (Remind in 30 minutes), or keys defined by `[Action KEY]` groups. Without `Actions=`
///   the category has no buttons. A config may redefine the built-in `[Category reminder]`.
/// - `[Action KEY]` defines a button. `Label=` is the text on it (required). Then at most one of:
///   - `Snooze=DURATION` (`5m`, `1h30m`, `90s`, `2d`): the notification fires again that
///     much later; its repeats keep their times.
///   - `Exec=PROGRAM;ARG;…`: a command, as a list separated by `;` (write `\;` for a `;`
///     inside an argument). It runs without a shell; a program name without a `/` is
///     looked up in `PATH` when the button is pressed. It gets `CHIME_ID`, `CHIME_ACTION`
///     and `CHIME_USER_INFO` (JSON) in its environment and
///     `{"id":…,"action":…,"userInfo":{…}}` on standard input. `Timeout=DURATION`
///     (default 30s) stops it with SIGTERM, then SIGKILL 2 seconds later.
///   - neither: pressing the button is only announced (the `ActionInvoked` signal on the
///     bus), for the app that is listening.
///
///   Its options (UIMutableUserNotificationAction's): `ActivationMode=background|foreground`
///   (foreground opens the notification's app first), `AuthenticationRequired=true|false`
///   (the press waits for an unlocked session), `Destructive=true|false` (shown last),
///   `Icon=NAME` (an icon-theme name a server with `action-icons` shows instead of the label).
/// - `MinimalActions=` in `[Category NAME]`: at most two keys, each in `Actions=` or a
///   built-in, shown where room is short (a transient notification); without it the
///   first two buttons are.
///
/// - `[App DESKTOP-ID]` turns off what Chime does for one app's notifications:
///   `Alerts=false` (no popup), `Sounds=false`, `Badges=false` (each true when absent).
///
/// `Label[LANG]=` gives a label in another language (`Label[de]=`), picked when shown.
/// Lines starting with `#` are comments. `default` (a click on the notification itself)
/// cannot be defined; `[Action complete]` and `[Action remind]` may only relabel the
/// built-in buttons (`Label=`, `Label[LANG]=`) and set their options, which then hold
/// wherever they are listed; what they do stays Chime's. Any other group or key is an error,
/// so a misspelt one is reported instead of ignored.
///
/// An error costs only its own group (``ConfigReader`` says how); the rest of the file is
/// used. A file that cannot be read at all changes nothing.
struct Config: Equatable, Sendable {
    var categories: [String: Category]
    /// Per-app switches, by desktop entry id (`[App DESKTOP-ID]`, see ConfigReader+Apps).
    var apps: [String: AppSettings] = [:]
    /// Every error of the file, in its order: what each names was left out.
    var errors: [ConfigError] = []
    /// The categories the file defines that were left out, with the error that cost each:
    /// a request naming one is told why.
    var droppedCategories: [String: ConfigError] = [:]
    /// When an all-day calendar item's day starts for its alarms (`[Calendars] AllDayTime=`):
    /// midnight as RFC 5545 and Thunderbird count, unless the user says otherwise.
    var allDayTime = TimeOfDay.midnight
    /// The calendar folders the file names (`[Calendar NAME]` with `Folder=`), by name, with
    /// the line of their group: followed as those `chime calendar add` adds are.
    var calendars: [String: ConfiguredCalendar] = [:]
    /// The `[Calendar NAME]` groups left out for an error: a calendar followed under that
    /// name goes on as it was until the group is mended.
    var brokenCalendars: Set<String> = []

    /// A calendar folder the config names.
    struct ConfiguredCalendar: Equatable, Sendable {
        /// Absolute (`~/` is the home folder).
        var folder: String
        var line: Int?
    }

    /// A time of day, to the minute.
    struct TimeOfDay: Equatable, Sendable {
        var hour: Int
        var minute: Int
        static let midnight = TimeOfDay(hour: 0, minute: 0)
    }

    init(categories: [String: Category] = Category.builtIn) {
        self.categories = categories
    }

    /// How long an `Exec=` command may run when the config gives no `Timeout=`.
    static let defaultTimeout: TimeInterval = 30

    /// Buttons every category may list without defining them.
    static let builtInActions: [String: ActionDefinition] = Dictionary(
        uniqueKeysWithValues: Category.reminder.actions.map { ($0.key, $0) }
    )

    /// `$XDG_CONFIG_HOME/chime/config`, or `~/.config/chime/config`.
    static var defaultURL: URL {
        UserFolders.config.appending(path: "config", directoryHint: .notDirectory)
    }

    /// The largest config read: a config with dozens of categories is a few KiB.
    static let sizeLimit = 256 * 1024

    /// Reads the config at `url`, with the errors of its groups in ``errors``. A missing
    /// file is no error: it means the built-in categories only. A file that is not a key
    /// file, or cannot be read, is the failure, and nothing of it is used. Only a regular
    /// file of at most ``sizeLimit`` bytes is read (a FIFO would block the daemon's loop).
    static func load(from url: URL) -> Result<Config, ConfigError> {
        let path = url.path
        let bytes: [UInt8]
        switch BoundedFile.read(path, limit: sizeLimit) {
        case .success(let read): bytes = read
        case .failure(.missing): return .success(Config())
        case .failure(let refusal): return .failure(ConfigError(path: path, line: nil, message: "The config \(refusal)."))
        }
        // GLib parses the very bytes whose lines are counted here, so a line number
        // always points into the text that was read.
        let file: KeyFile
        do {
            file = try KeyFile()
        } catch {
            return .failure(ConfigError(path: path, line: nil, message: "The config cannot be read without GLib: \(error)."))
        }
        if let message = file.load(bytes[...]) {
            let line = KeyFile.firstRefusedLine(of: bytes)
            return .failure(ConfigError(path: path, line: line, message: "Not a key file: \(message)."))
        }
        var reader = ConfigReader(file: file, lines: KeyFileLines(bytes), path: path)
        return .success(reader.read())
    }
}

/// Why a config was not used: the file, the line when there is one, and a sentence.
struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    let path: String
    let line: Int?
    let message: String

    var description: String {
        if let line { return "\(path):\(line): \(message)" }
        return "\(path): \(message)"
    }
}
