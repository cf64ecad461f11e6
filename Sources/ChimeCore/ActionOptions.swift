/// How a button behaves when pressed (UIMutableUserNotificationAction's `activationMode`,
/// `authenticationRequired` and `destructive`).
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

    /// Options with every field at its default: background, no authentication, not destructive.
    public init(activationMode: ActivationMode = .background, authenticationRequired: Bool = false, destructive: Bool = false) {
        self.activationMode = activationMode
        self.authenticationRequired = authenticationRequired
        self.destructive = destructive
    }

    /// Whether every field is at its default, so nothing needs storing.
    public var isDefault: Bool { self == ActionOptions() }

    private enum CodingKeys: String, CodingKey {
        case activationMode, authenticationRequired, destructive
    }

    // A field a later version adds must not make rows of this one unreadable: each is optional.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        activationMode = try container.decodeIfPresent(ActivationMode.self, forKey: .activationMode) ?? .background
        authenticationRequired = try container.decodeIfPresent(Bool.self, forKey: .authenticationRequired) ?? false
        destructive = try container.decodeIfPresent(Bool.self, forKey: .destructive) ?? false
    }

    /// The names the config and the D-Bus key use, in the order they are documented.
    public static let names = ["activationMode", "authenticationRequired", "destructive"]
}

extension Array where Element == Action {
    /// The buttons with the destructive ones last, each group in its own order: a
    /// server that shows only the first few drops a destructive one first.
    public func destructiveLast() -> [Action] {
        filter { !$0.resolvedOptions.destructive } + filter { $0.resolvedOptions.destructive }
    }
}
