import ChimeAPI
import ChimeCore
import DBus

/// `Snooze`: a notification on screen put off until later, as its snooze buttons do,
/// without a button (`chime snooze`).
extension MethodTable {
    func snooze(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let id = call.string(0)
        let time: SnoozeTime
        do { time = try SnoozeTime(parsing: call.string(1), field: "when", now: now()) } catch {
            throw .invalidArgs(error.description)
        }
        // On its way to the screen counts: `chime notify -p` returns before the server answers.
        guard let alert = presenter.claim(id: id) else {
            if presenter.alert(for: id) != nil {
                throw DBusError(name: ChimeError.notShown, message: "Notification '\(id)' was already pressed or snoozed; "
                    + "it leaves the screen once that is stored.")
            }
            let stored = try commits.read { () throws(StoreError) in try store.notification(id: id) }
            guard stored != nil else { throw ChimeError.notFound(id) }
            throw DBusError(name: ChimeError.notShown, message: "Notification '\(id)' is not on screen, so there is nothing to "
                + "snooze; Update changes when a scheduled one fires.")
        }
        do throws(FieldError) {
            // The copy is stored before the popup goes: a refused snooze leaves it on screen.
            try presses.snooze(id, alert: alert, until: time) { [unowned self] result in
                switch result {
                case .success(let copy):
                    self.presenter.closeSnoozed(id: id)
                    responder.reply([.string(copy.id)])
                case .failure(let error):
                    self.presenter.release(id: id)
                    responder.fail(.refused("Not snoozed", error))
                }
            }
        } catch {
            presenter.release(id: id)
            throw .invalidArgs(error.description)
        }
    }
}
