/// Where a notification's buttons are shown (UIUserNotificationActionContext): with room
/// for all of them, or with little room.
public enum ActionContext: Equatable, Sendable {
    /// Every button of `Actions=` and the notification's own (UIUserNotificationActionContextDefault).
    case `default`
    /// At most two: `MinimalActions=`, or the first two of the default context
    /// (UIUserNotificationActionContextMinimal).
    case minimal

    /// The most buttons the minimal context shows, as iOS's banners do.
    public static let minimalLimit = 2

    /// The context of `alert`: minimal when it is transient.
    ///
    /// A transient notification (the `transient` hint) is shown as a passing banner and
    /// never kept in the server's list: the one place where a freedesktop server is known
    /// to give a notification less time and room, as iOS shows its banners with the minimal
    /// context. No server says how many buttons it shows (the spec has no capability for
    /// it), so the server alone never decides it.
    public init(for alert: Alert) {
        self = alert.hints.contains(.transient(true)) ? .minimal : .default
    }
}

extension Alert {
    /// The alert as a server is to show it in `context`: its own buttons and its category's,
    /// or the category's minimal ones, destructive ones last.
    public func shown(in context: ActionContext, category: Category?) -> Alert {
        var shown = withActions(of: category)
        // A button only MinimalActions lists is pressable, but shown only in that context.
        let defaultKeys = Set(actions.map(\.key)).union(category?.actions.map(\.key) ?? [])
        let defaultButtons = shown.actions.filter { defaultKeys.contains($0.key) }.destructiveLast()
        switch context {
        case .default:
            shown.actions = defaultButtons
        case .minimal:
            if let minimal = category?.minimalActions {
                let all = shown.actions
                shown.actions = minimal.compactMap { definition in all.first { $0.key == definition.key } }.destructiveLast()
            } else {
                shown.actions = Array(defaultButtons.prefix(ActionContext.minimalLimit))
            }
        }
        return shown
    }
}
