import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import ICS

/// `ImportICalendar`, `ImportICalendarPart` and `ExportICalendar`: the iCalendar mapping
/// (the ICS module) for any bus caller; chime import and chime export call them. libical
/// is opened by the first of these calls, never at start-up: a daemon that is never
/// asked does not pay for it.
extension MethodTable {
    func importICalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        try importCalendar(call.string(0), lines: [], responder) { ids, refused, skipped in
            // Only a text without components gets no id and no sentence.
            let none = ids.isEmpty && refused.isEmpty && skipped.isEmpty ? ["text: it has no VEVENT or VTODO to import."] : []
            return [.stringArray(ids), .stringArray(refused + skipped + none)]
        }
    }

    func importICalendarPart(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let lines = call.arguments[1].arrayElements?.compactMap(\.integerValue) ?? []
        guard lines.allSatisfy({ $0 >= 1 }) else { throw .invalidArgs("lines: a line is counted from 1.") }
        try importCalendar(call.string(0), lines: lines.map { Int($0) }, responder) { ids, refused, skipped in
            [.stringArray(ids), .stringArray(refused), .stringArray(skipped)]
        }
    }

    /// Schedules the components of `text`, each whole or not at all, in one transaction;
    /// `answer` makes the reply from the ids and the sentences of components refused and skipped.
    private func importCalendar(
        _ text: String, lines: [Int], _ responder: Responder, answer: @escaping ([String], [String], [String]) -> [Value]
    ) throws(DBusError) {
        try Self.openLibical()
        guard let components = CalendarText.components(of: text, lines: lines) else {
            throw .invalidArgs("text: not iCalendar: " + CalendarText.whyNotCalendar(text))
        }
        guard lines.isEmpty || lines.count == components.count else {
            throw .invalidArgs("lines: \(lines.count) given for \(components.count) VEVENT and VTODO components.")
        }
        let instant = now(), zone = Zone.current
        var notifications: [ScheduledNotification] = [], refused: [String] = [], skipped: [String] = []
        // Every alarm of a component is decoded and checked before any is kept: a component
        // is stored whole, in the one transaction below, or not at all.
        for component in components {
            do {
                let plan = try component.plan.get()
                let requests = try plan.requests { when, options in
                    try Self.firstFire(when, options, now: instant, zone: zone)
                }
                notifications += try requests.map { request, _ throws(DBusError) in
                    var notification = try scheduledNotification(request.map { (key: $0.0, value: $0.1) }, now: instant, zone: zone)
                    Self.skip(plan.skipped, of: &notification, now: instant, zone: zone)
                    return notification
                }
            } catch let refusal as ImportRefusal {
                switch refusal {
                case .skipped: skipped.append(refusal.sentence(component.label))
                case .refused: refused.append(refusal.sentence(component.label))
                }
            } catch let error as DBusError {
                refused.append(ImportRefusal.refused(error.message).sentence(component.label))
            } catch {
                refused.append(ImportRefusal.refused("\(error)").sentence(component.label))
            }
        }
        guard !notifications.isEmpty else { return responder.reply(answer([], refused, skipped)) }
        schedule.add(notifications) { [unowned self] result in
            switch result {
            case .success(let notifications):
                self.logger.info("Imported \(notifications.count) from iCalendar, \(refused.count + skipped.count) components not.")
                responder.reply(answer(notifications.map(\.id), refused, skipped))
            case .failure(let error):
                responder.fail(.refused("Nothing imported", error))
            }
        }
    }

    func exportICalendar(_ call: MethodCall) throws(DBusError) -> [Value] {
        try Self.openLibical()
        guard let ids = call.arguments[0].arrayElements?.compactMap(\.stringValue) else { throw .invalidArgs("ids: expected as.") }
        var chosen: [ScheduledNotification] = []
        if ids.isEmpty {
            chosen = try commits.read { () throws(StoreError) in try store.scheduled() }
        }
        for id in ids {
            guard let notification = try commits.read({ () throws(StoreError) in try store.notification(id: id) }) else {
                throw ChimeError.notFound(id)
            }
            chosen.append(notification)
        }
        let zone = Zone.current
        let (calendar, leftOut) = CalendarText.export(chosen.map { NotificationEncoding.entries($0, zone: zone).map { (key: $0.0, value: $0.1) } },
                                                      systemZone: zone.identifier)
        return [.string(calendar), .stringArray(leftOut)]
    }

    /// Leaves out of a repeat the occurrences its EXDATEs name (`whens` in Schedule's form),
    /// as Skip does; one that names no occurrence changes nothing (RFC 5545 3.8.5.1).
    private static func skip(_ whens: [String], of notification: inout ScheduledNotification, now: Date, zone: Zone) {
        guard !whens.isEmpty, notification.rule.recurrence != nil else { return }
        let parser = WhenParser(now: now, systemZone: zone)
        for text in whens {
            guard let instant = (try? parser.trigger(text))?.instant(systemZone: zone),
                  let found = notification.rule.firstOccurrence(onOrAfter: instant, systemZone: zone), found.date == instant,
                  let local = notification.rule.wallClock(ofOccurrence: found.index, systemZone: zone) else { continue }
            notification.rule.skipped.insert(local)
        }
        guard let next = notification.nextFire else { return }
        let first = notification.rule.firstOccurrence(onOrAfter: next, systemZone: zone)
        notification.nextIndex = first?.index ?? notification.nextIndex + 1
        notification.nextFire = first?.date
    }

    /// Failed, with the loader's reason, when libical 3 is not installed.
    private static func openLibical() throws(DBusError) {
        if let failure = CalendarText.loadFailure() { throw .failed(failure + ".") }
    }

    /// What NextFireTimestamps would answer with a count of 1, as ``ImportPlan`` asks it.
    private static func firstFire(_ when: String, _ options: [(String, String)], now: Date, zone: Zone) throws -> Int64? {
        do throws(FieldError) {
            let options = options.map { (key: $0.0, value: $0.1) }
            return try ScheduleFields.upcoming(when: when, options: options, count: 1, now: now, systemZone: zone).first
                .map(NotificationEncoding.seconds)
        } catch {
            throw ImportRefusal.refused(error.description)
        }
    }

    // MARK: - Schedule's requests

    /// A Schedule request as the notification it asks for, not yet stored; InvalidArgs names the key at fault.
    func scheduledNotification(_ entries: [(key: String, value: Value)], now instant: Date, zone: Zone)
        throws(DBusError) -> ScheduledNotification {
        var fields = ScheduleFields()
        let alert = try AlertDecoding.decode(typed: entries) { key, value throws(FieldError) in
            if try fields.place.set(key, typed: value) { return true }
            return try fields.set(key, typed: value)
        }
        return try scheduledNotification(alert, fields, now: instant, zone: zone)
    }

    /// The notification `alert` and `fields` ask for, with a fresh id, not yet stored.
    func scheduledNotification(_ alert: Alert, _ fields: ScheduleFields, now instant: Date, zone: Zone)
        throws(DBusError) -> ScheduledNotification {
        let rule: FireRule
        let start: (index: Int, date: Date)?
        do throws(FieldError) {
            rule = try fields.rule(now: instant, systemZone: zone)
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
