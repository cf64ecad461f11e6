import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// `Update` and `UpdateSimple`: a scheduled notification changed in place, keeping its id,
/// its lineage and its history. Everything is decoded and checked before anything is
/// staged, so a bad key changes nothing.
extension MethodTable {
    func update(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let id = call.string(0)
        let entries = try call.entries(1)
        let existing = try scheduled(id)
        var fields = ScheduleFields()
        let alert = try AlertDecoding.decode(typed: entries, base: existing.alert) { key, value throws(FieldError) in
            if try fields.place.set(key, typed: value) { return true }
            return try fields.set(key, typed: value)
        }
        try update(existing, alert, fields, keys: entries.map(\.key), responder)
    }

    func updateSimple(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let id = call.string(0)
        let options = try call.stringEntries(1)
        let existing = try scheduled(id)
        // title and body are arguments of their own in the string form of an alert.
        let title = options.last { $0.key == NotificationKey.title.rawValue }?.value ?? existing.alert.title
        let body = options.last { $0.key == NotificationKey.body.rawValue }?.value ?? existing.alert.body
        let rest = options.filter { $0.key != NotificationKey.title.rawValue && $0.key != NotificationKey.body.rawValue }
        var fields = ScheduleFields()
        let alert = try AlertDecoding.decode(title: title, body: body, options: rest, base: existing.alert) { key, text throws(FieldError) in
            if try fields.place.set(key, text: text) { return true }
            return try fields.set(key, text: text)
        }
        try update(existing, alert, fields, keys: options.map(\.key), responder)
    }

    /// The notification `id` if it is scheduled; NotFound or NotScheduled otherwise.
    private func scheduled(_ id: String) throws(DBusError) -> ScheduledNotification {
        if let notification = try commits.read({ () throws(StoreError) in try store.notification(id: id) }) {
            guard notification.state == .scheduled else { throw Self.done(id) }
            return notification
        }
        if try commits.read({ () throws(StoreError) in try store.wasCancelled(id) }) {
            throw DBusError(name: ChimeError.notScheduled, message: "Notification '\(id)' was cancelled, so it cannot be changed; "
                + "schedule a new one.")
        }
        throw ChimeError.notFound(id)
    }

    private static func done(_ id: String) -> DBusError {
        DBusError(name: ChimeError.notScheduled, message: "Notification '\(id)' is done (it fired for the last time or was "
            + "completed), so it cannot be changed; schedule a new one.")
    }

    private func update(_ existing: ScheduledNotification, _ alert: Alert, _ fields: ScheduleFields, keys: [String],
                        _ responder: Responder) throws(DBusError) {
        // late says how to read a when; alone it changes nothing.
        let keys = keys.filter { $0 != NotificationKey.late.rawValue }
        guard !keys.isEmpty else { throw .invalidArgs("changes: nothing to change; give at least one key, such as title or when.") }
        // Only a category given now: one the config has since lost stays, and fires without its buttons.
        if keys.contains(NotificationKey.category.rawValue) { try checkCategory(of: alert) }
        let instant = now()
        var updated = existing
        updated.alert = alert
        var fields = fields
        fields.lead = alert.leadTime
        do throws(FieldError) {
            try reschedule(&updated, fields, keys: keys, now: instant)
        } catch {
            throw .invalidArgs(error.description)
        }
        var changed: [String] = []
        for key in keys where !changed.contains(key) { changed.append(key) }
        let detail = "Changed " + changed.joined(separator: ", ") + "."
        schedule.update(updated, detail: detail, at: instant) { [unowned self] result in
            switch result {
            case .success(true):
                self.logger.info("Changed \(updated.id) (\(changed.joined(separator: ", "))): \(alert.title)")
                responder.reply([])
            case .success(false):
                responder.fail(Self.done(updated.id))
            case .failure(let error):
                responder.fail(.refused("Not changed", error))
            }
        }
    }

    /// Applies the schedule keys among `keys`: the rule, the next occurrence, the late limit.
    private func reschedule(_ notification: inout ScheduledNotification, _ fields: ScheduleFields, keys: [String],
                            now: Date) throws(FieldError) {
        let given = Set(keys)
        if given.contains(NotificationKey.lateLimit.rawValue) { notification.lateLimit = fields.lateLimit }
        let ruleKeys = NotificationKey.allCases.filter { ($0.part == .schedule || $0.part == .place) && ![.lateLimit, .late].contains($0) }
        let changesRule = ruleKeys.contains { given.contains($0.rawValue) }
        // A new lead moves the item a repeat counts from; its first fire time (when) stays.
        guard changesRule || given.contains(NotificationKey.leadTime.rawValue) else { return }
        let zone = Zone.current
        let existing = notification.rule
        let rule = changesRule ? try fields.rule(changing: existing, given: given, now: now, systemZone: zone)
            : existing.leading(by: fields.leadSeconds)
        if !changesRule, rule == existing { return }
        if rule.trigger.place != nil, notification.lateLimit != nil, !given.contains(NotificationKey.lateLimit.rawValue) {
            notification.lateLimit = nil
        }
        notification.rule = rule
        if rule.trigger != existing.trigger {
            // A new time is a new start: the past is refused or skipped as Schedule's is.
            notification.presence = nil
            let start = try fields.start(of: rule, now: now, systemZone: zone, given: given)
            notification.nextIndex = start?.index ?? 0
            notification.nextFire = start?.date
        } else if rule.trigger.place == nil {
            // The same start with another repeat: the series goes on from now.
            guard let next = rule.firstOccurrence(onOrAfter: now, systemZone: zone) else {
                throw FieldError(given.contains("calendar") ? "calendar" : "repeat", "leaves no occurrence to come; give a new when too.")
            }
            notification.nextIndex = next.index
            notification.nextFire = next.date
        }
    }
}
