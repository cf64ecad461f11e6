import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// `PresentNow` and `PresentNowSimple`, with `replaces`.
extension MethodTable {
    /// The key of `PresentNow` that names a notification on screen to replace.
    static let replacesKey = "replaces"

    /// `replaces` as the typed form gives it: a Chime id, or a server id as a string or a number.
    static func replaces(_ value: Value) throws(FieldError) -> String {
        if let text = value.stringValue { return text }
        if let number = value.integerValue, let serverID = UInt32(exactly: number) { return String(serverID) }
        throw FieldError(replacesKey, "must be a Chime id (s) or a server id (u), not type '\(value.signature)'.")
    }

    /// Shows `alert` now; its id. With `target`, it replaces what that names on screen.
    func present(_ alert: Alert, replacing target: String?) throws(DBusError) -> String {
        var replacement = Presenter.Replacement()
        if let target { replacement = try presenter.replacement(named: target) }
        var id = target.flatMap { replacement.keepsID ? replacement.id ?? $0 : nil } ?? NotificationID.random()
        // An id of the schedule is never taken over by a notification shown now.
        if replacement.keepsID, replacement.id == nil, try commits.read({ () throws(StoreError) in try store.notification(id: id) }) != nil {
            id = NotificationID.random()
        }
        while replacement.id != id, presenter.alert(for: id) != nil { id = NotificationID.random() }
        try presenter.present(alert, id: id, replacing: replacement)
        logger.info("Presenting \(id)\(replacement.id.map { " in place of \($0)" } ?? ""): \(alert.title)")
        return id
    }
}
