/// How a button behaves when pressed (UIMutableUserNotificationAction's `activationMode`,
/// `authenticationRequired` and `destructive`), and the icon it may show instead of its
/// label (UNNotificationAction's `icon`).
public struct ActionOptions: Equatable, Sendable, Codable {
    /// Whether pressing the button brings the app forward (UIUserNotificationActivationMode).
    public enum ActivationMode: String, CaseIterable, Equatable, Sendable, Codable {
        /// The handler runs; the app is left where it is (the default).
        case background
        /// The app of the notification's `desktopEntry` is opened with the action, then the handler runs.
        case foreground
    }

    /// Whether the press opens the app first.
    public var activationMode: ActivationMode
    /// Whether the handler waits for an unlocked session.
    public var authenticationRequired: Bool
    /// Whether the action destroys something (shown last among the buttons).
    public var destructive: Bool
    /// An icon-theme name shown on the button by a server with `action-icons`.
    public var icon: String?

    /// Options with every field at its default: background, no authentication, not destructive, no icon.
    public init(activationMode: ActivationMode = .background, authenticationRequired: Bool = false, destructive: Bool = false,
                icon: String? = nil) {
        self.activationMode = activationMode
        self.authenticationRequired = authenticationRequired
        self.destructive = destructive
        self.icon = icon
    }

    /// Whether every field is at its default, so nothing needs storing.
    public var isDefault: Bool { self == ActionOptions() }

    private enum CodingKeys: String, CodingKey {
        case activationMode, authenticationRequired, destructive, icon
    }

    // A field a later version adds must not make rows of this one unreadable: each is optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        activationMode = try container.decodeIfPresent(ActivationMode.self, forKey: .activationMode) ?? .background
        authenticationRequired = try container.decodeIfPresent(Bool.self, forKey: .authenticationRequired) ?? false
        destructive = try container.decodeIfPresent(Bool.self, forKey: .destructive) ?? false
        icon = try container.decodeIfPresent(String.self, forKey: .icon)
    }

    /// The names the config and the D-Bus key use, in the order they are documented.
    public static let names = ["activationMode", "authenticationRequired", "destructive", "icon"]

    /// Why `name` cannot be an icon name, or nil when it can: a name of the icon theme
    /// (`alarm-symbolic`), one line, no path.
    public static func iconProblem(_ name: String) -> String? {
        if name.isEmpty { return "must not be empty." }
        if name.utf8.count > 255 { return "is \(name.utf8.count) bytes long; an icon name has at most 255." }
        if name.contains("/") || name.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true }) {
            return "'\(name)' is not an icon-theme name such as alarm-symbolic (no spaces, no /)."
        }
        return nil
    }
}

extension Array where Element == Action {
    /// The buttons with the destructive ones last, each group in its own order: a
    /// server that shows only the first few drops a destructive one first.
    public func destructiveLast() -> [Action] {
        filter { !$0.resolvedOptions.destructive } + filter { $0.resolvedOptions.destructive }
    }
}
