import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// What a Schedule request asks for: Schedule, ScheduleSimple and every calendar read.
extension ScheduledNotification {
    /// A Schedule request as the notification it asks for, not yet stored; InvalidArgs names the key at fault.
    /// `rule`, when given, is the one its scheduling fields ask for, read before.
    static func requested(_ entries: [(key: String, value: Value)], now instant: Date, zone: Zone, rule: FireRule? = nil)
        throws(DBusError) -> ScheduledNotification {
        var fields = ScheduleFields()
        let alert = try AlertDecoding.decode(typed: entries) { key, value throws(FieldError) in
            if try fields.place.set(key, typed: value) { return true }
            return try fields.set(key, typed: value)
        }
        return try requested(alert, fields, now: instant, zone: zone, rule: rule)
    }

    /// The notification `alert` and `fields` ask for, with a fresh id, not yet stored.
    static func requested(_ alert: Alert, _ fields: ScheduleFields, now instant: Date, zone: Zone, rule given: FireRule? = nil)
        throws(DBusError) -> ScheduledNotification {
        var fields = fields
        fields.lead = alert.leadTime
        let rule: FireRule
        let start: (index: Int, date: Date)?
        do throws(FieldError) {
            if let given { rule = given } else { rule = try fields.rule(now: instant, systemZone: zone) }
            start = try fields.start(of: rule, now: instant, systemZone: zone)
        } catch {
            throw .invalidArgs(error.description)
        }
        return ScheduledNotification(
            id: NotificationID.random(), alert: alert, rule: rule, lateLimit: fields.lateLimit, created: instant,
            nextIndex: start?.index ?? 0, nextFire: start?.date
        )
    }
}
