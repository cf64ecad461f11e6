import ChimeCore
import FoundationEssentials

/// The action options at press time: a foreground button opens the app first, and a button
/// that requires authentication waits for an unlocked session.
extension PressHandler {
    /// Whether a press of a button with `authenticationRequired` may run now; if not, it is held.
    ///
    /// Held presses are kept in memory only, not in the store: a press is a gesture of a
    /// moment, and one made before chimed stopped and replayed after it started again, in
    /// a session that may be another one by then, is not what the person meant. The
    /// notification itself is untouched, so its buttons (and `chime act`) still work.
    func mayRunNow(_ press: Press) -> Bool {
        switch lock?.state ?? .unknown {
        case .unlocked:
            return true
        case .unknown:
            // A desktop without a locker has no lock state to read; refusing there would
            // make such buttons never work.
            logger.notice("'\(press.key)' on \(press.id) requires an unlocked session, and whether the session is locked cannot be told (\(lock?.unknownReason ?? "no lock state is followed")); running it.")
            return true
        case .locked:
            held.append(press)
            logger.notice("'\(press.key)' on \(press.id) requires an unlocked session; held until the session is unlocked.")
            record(HistoryEntry(time: now(), id: press.id, event: .pressed, title: press.alert.title,
                                detail: "\(press.label): held until the session is unlocked.", action: press.key))
            return false
        }
    }

    /// Runs the held presses, oldest first, once the session is unlocked (or its lock state
    /// can no longer be told); those whose notification is gone by then are dropped.
    func releaseHeld() {
        let presses = held
        held = []
        for press in presses {
            if let reason = gone(press) {
                logger.notice("Dropped the held '\(press.key)' on \(press.id): \(reason).")
                record(HistoryEntry(time: now(), id: press.id, event: .pressed, title: press.alert.title,
                                    detail: "\(press.label): dropped, \(reason).", action: press.key))
                continue
            }
            logger.info("The session is unlocked: running the held '\(press.key)' on \(press.id).")
            pressed(press)
        }
    }

    /// Why a held press's notification is no longer there to act on; nil when it is.
    private func gone(_ press: Press) -> String? {
        // PresentNow notifications are never stored, and so cannot be cancelled.
        guard press.kind != .immediate else { return nil }
        let stored: ScheduledNotification?
        do { stored = try commits.read { () throws(StoreError) in try store.notification(id: press.id) } } catch { return nil }
        guard let notification = stored else { return "it was cancelled while the session was locked" }
        if notification.completed != nil { return "it was completed while the session was locked" }
        return nil
    }

    /// Opens the app of a foreground button's notification, then runs `handler`.
    func bringForward(_ press: Press, then handler: @escaping () -> Void) {
        guard let entry = press.alert.desktopEntry else {
            logger.notice("'\(press.key)' on \(press.id) is a foreground action, but the notification names no desktopEntry: there is no app to bring forward; running its handler.")
            return handler()
        }
        launcher.open(desktopEntry: entry, id: press.id, userInfo: press.alert.userInfo, action: press.key, then: handler)
    }
}
