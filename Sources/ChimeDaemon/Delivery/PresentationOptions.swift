import ChimeAPI
import ChimeCore
import DBus

/// What Chime does when one occurrence comes due: iOS's UIUserNotificationType (alert,
/// sound, badge). The user's per-app settings and the app in front each allow a subset;
/// Chime does what both allow.
struct PresentationOptions: OptionSet, Sendable, CustomStringConvertible {
    let rawValue: UInt8

    /// The popup: a `Notify` call.
    static let alert = PresentationOptions(rawValue: 1 << 0)
    /// Its sound, through the server's hints or libcanberra.
    static let sound = PresentationOptions(rawValue: 1 << 1)
    /// Its badge number on the app's icon.
    static let badge = PresentationOptions(rawValue: 1 << 2)

    static let all: PresentationOptions = [.alert, .sound, .badge]

    /// The words `WillPresent` answers with and `GetAppSettings` stands for, in order.
    static let words: [(String, PresentationOptions)] = [("alert", .alert), ("sound", .sound), ("badge", .badge)]

    /// "alert, badge", or "nothing".
    var description: String {
        let names = Self.words.filter { contains($0.1) }.map(\.0)
        return names.isEmpty ? "nothing" : names.joined(separator: ", ")
    }

    /// The alert as it is sent when the sound is not allowed: silence, whatever the
    /// notification asked for (`suppress-sound`, no `sound-name` or `sound-file`, not even
    /// as raw hints).
    func shaping(_ alert: Alert) -> Alert {
        guard !contains(.sound) else { return alert }
        var silent = alert
        silent.sound = .none
        silent.hints.removeAll { hint in
            guard case .custom(let name, _) = hint else { return false }
            return ["sound-name", "sound-file", "suppress-sound"].contains(name)
        }
        return silent
    }
}

/// One app's switches from the config (`[App DESKTOP-ID]`): iOS's
/// `registerUserNotificationSettings`, set by the user instead of the app.
struct AppSettings: Equatable, Sendable {
    var alerts = true
    var sounds = true
    var badges = true

    /// What these settings allow.
    var allowed: PresentationOptions {
        var allowed: PresentationOptions = []
        if alerts { allowed.insert(.alert) }
        if sounds { allowed.insert(.sound) }
        if badges { allowed.insert(.badge) }
        return allowed
    }

    /// As `GetAppSettings` answers.
    var entries: [(String, Value)] {
        let values: [AppSettingsKey: Bool] = [.alerts: alerts, .sounds: sounds, .badges: badges]
        return AppSettingsKey.allCases.map { ($0.rawValue, .bool(values[$0] ?? true)) }
    }
}

/// What is decided for one occurrence, and who took away the popup when nobody sees one.
struct OccurrenceDecision: Equatable, Sendable {
    /// Who decided against the popup.
    enum Withholder: Equatable, Sendable {
        /// `Alerts=false` in the app's config group.
        case settings(app: String)
        /// The app in front answered `WillPresent` without `alert`: it handled it itself.
        case app(String)
    }

    var presentation: PresentationOptions
    /// Set when `presentation` has no `.alert`.
    var withheld: Withholder?

    /// Everything as usual: nobody asked, or nobody said otherwise.
    static let usual = OccurrenceDecision(presentation: .all, withheld: nil)

    /// The settings of `app`, then the app's own answer (nil: none that counts) on top.
    static func combining(settings: AppSettings, app: String, answer: PresentationOptions?) -> OccurrenceDecision {
        let both = settings.allowed.intersection(answer ?? .all)
        guard !both.contains(.alert) else { return OccurrenceDecision(presentation: both, withheld: nil) }
        return OccurrenceDecision(presentation: both, withheld: settings.alerts ? .app(app) : .settings(app: app))
    }
}
