import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import ICS
import Localization

/// `ImportICalendar`, `ImportICalendarPart` and `ExportICalendar`: the iCalendar mapping
/// (the ICS module) for any bus caller; chime import and chime export call them. libical
/// is opened by the first of these calls, never at start-up: a daemon that is never
/// asked does not pay for it.
extension MethodTable {
    func importICalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        try importCalendar(call.string(0), lines: [], responder) { imported in
            // Only a text without components gets no id and no sentence.
            let sentences = imported.refused + imported.skipped
            let none = imported.ids.isEmpty && sentences.isEmpty ? ["text: it has no VEVENT or VTODO to import."] : []
            return [.stringArray(imported.ids), .stringArray(sentences + none)]
        }
    }

    func importICalendarPart(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let lines = call.arguments[1].arrayElements?.compactMap(\.integerValue) ?? []
        guard lines.allSatisfy({ $0 >= 1 }) else { throw .invalidArgs("lines: a line is counted from 1.") }
        try importCalendar(call.string(0), lines: lines.map { Int($0) }, responder) { imported in
            // Described here, so that a caller that shows what it imported (chime import) asks
            // no Get per id: 5,000 round trips were most of the time a large import took.
            [.stringArray(imported.ids), .stringArray(imported.refused), .stringArray(imported.skipped), .stringArray(imported.updated),
             .array(element: "a{sv}", imported.notifications.map { .variantDictionary(NotificationEncoding.entries($0, zone: .current)) })]
        }
    }

    /// What an import did: the ids scheduled (new and updated, in the order of the text),
    /// those of them that were there already, and the sentences of components refused and skipped.
    struct Imported {
        var ids: [String] = []
        /// The notifications of `ids`, as stored.
        var notifications: [ScheduledNotification] = []
        var updated: [String] = []
        var refused: [String] = []
        var skipped: [String] = []
    }

    /// Schedules the components of `text`, each whole or not at all, in one transaction;
    /// `answer` makes the reply. An item Chime has already (the same UID, occurrence and
    /// alarm; for one chime export wrote, the notification its UID names) is updated in
    /// place under its id, and one completed in Chime stays completed.
    private func importCalendar(_ text: String, lines: [Int], _ responder: Responder, answer: @escaping (Imported) -> [Value])
        throws(DBusError) {
        try Self.openLibical()
        let allDay = settings.config.allDayTime
        guard let components = CalendarText.components(of: text, lines: lines, allDay: (allDay.hour, allDay.minute)) else {
            throw .invalidArgs("text: not iCalendar: " + CalendarText.whyNotCalendar(text))
        }
        guard lines.isEmpty || lines.count == components.count else {
            throw .invalidArgs("lines: \(lines.count) given for \(components.count) VEVENT and VTODO components.")
        }
        let instant = now(), zone = Zone.current
        var known = try KnownItems(store: store, commits: commits, uids: Set(components.compactMap { try? $0.plan.get().uid }))
        var imported = Imported()
        // Each notification made, in order: a new one (by its place in `new`) or one updated (by id).
        var order: [Either] = [], new: [ScheduledNotification] = [], updated: [ScheduledNotification] = []
        // What the notifications updated were, by id: one the calendar did not change is not written.
        var before: [String: ScheduledNotification] = [:]
        // The occurrences that overrides (RECURRENCE-ID) replace or cancel, by the UID of their series.
        var overridden: [String: [String]] = [:]
        // Every alarm of a component is decoded and checked before any is kept: a component
        // is stored whole, in the one transaction below, or not at all.
        for component in components {
            do {
                let plan = try component.plan.get()
                if let replaced = plan.replaces, !plan.uid.isEmpty { overridden[plan.uid, default: []].append(replaced) }
                let requests = try plan.requests { when, options, lead in
                    try Self.firstFire(when, options, lead: lead, now: instant, zone: zone)
                }
                let made = try requests.map { request, _, alarm throws(DBusError) in
                    var notification = try scheduledNotification(request.map { (key: $0.0, value: $0.1) }, now: instant, zone: zone)
                    Self.skip(plan.skipped, of: &notification, now: instant, zone: zone)
                    if !plan.uid.isEmpty { notification.link = CalendarLink(uid: plan.uid, recurrence: plan.recurrenceID, alarm: alarm) }
                    return notification
                }
                imported.skipped += plan.notes.map { ImportRefusal.skipped($0).sentence(component.label) }
                var completed = 0
                for var notification in made {
                    switch known.match(notification) {
                    case .new:
                        order.append(.new(new.count))
                        new.append(notification)
                    case .existing(let old):
                        notification.adopt(old)
                        before[old.id] = old
                        order.append(.updated(notification.id))
                        updated.append(notification)
                    case .completed:
                        completed += 1
                    }
                }
                if !made.isEmpty, completed == made.count {
                    imported.skipped.append(ImportRefusal.skipped(localized("it was completed in Chime")).sentence(component.label))
                }
            } catch let refusal as ImportRefusal {
                switch refusal {
                case .skipped: imported.skipped.append(refusal.sentence(component.label))
                case .refused: imported.refused.append(refusal.sentence(component.label))
                }
            } catch let error as DBusError {
                imported.refused.append(ImportRefusal.refused(error.message).sentence(component.label))
            } catch {
                imported.refused.append(ImportRefusal.refused("\(error)").sentence(component.label))
            }
        }
        // Each series skips the occurrences its overrides stand for, whether it is read now or
        // was read before (then it is updated too).
        for (uid, occurrences) in overridden {
            let skip = { (notification: inout ScheduledNotification) in
                guard notification.link?.uid == uid, notification.link?.recurrence == "" else { return }
                Self.skip(occurrences, of: &notification, now: instant, zone: zone)
            }
            for index in new.indices { skip(&new[index]) }
            for index in updated.indices { skip(&updated[index]) }
            for var series in known.unmatchedSeries(of: uid) {
                let before = series.rule.skipped
                skip(&series)
                if series.rule.skipped != before { updated.append(series) }
            }
        }
        // Read again as it was: nothing to write, and no history of an edit that was none.
        let now = Dictionary(updated.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        let unchanged = before.filter { id, old in now[id] == old }
        updated.removeAll { unchanged[$0.id] != nil }
        // The answer, in the order of the text, once what changed is stored.
        let finish = { (stored: [ScheduledNotification], written: [String: ScheduledNotification]) in
            for entry in order {
                switch entry {
                case .new(let index):
                    imported.ids.append(stored[index].id)
                    imported.notifications.append(stored[index])
                // One that went (cancelled, say) while this was staged is not updated.
                case .updated(let id):
                    guard let notification = written[id] ?? unchanged[id] else { continue }
                    imported.ids.append(id)
                    imported.updated.append(id)
                    imported.notifications.append(notification)
                }
            }
            responder.reply(answer(imported))
        }
        guard !new.isEmpty || !updated.isEmpty else { return finish([], [:]) }
        schedule.merge(new: new, updated: updated, detail: "Read again from a calendar.", at: instant) { [unowned self] result in
            switch result {
            case .success(let stored):
                let left = imported.refused.count + imported.skipped.count
                self.logger.info("Imported \(stored.new.count) new and \(stored.updated.count) updated from iCalendar, \(left) components not.")
                finish(stored.new, Dictionary(stored.updated.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }))
            case .failure(let error):
                responder.fail(.refused("Nothing imported", error))
            }
        }
    }

    private enum Either {
        case new(Int)
        case updated(String)
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
    /// as Skip does; one that names no occurrence changes nothing (RFC 5545 3.8.5.1). An
    /// EXDATE names the item's occurrence, which a repeat with a lead counts from.
    private static func skip(_ whens: [String], of notification: inout ScheduledNotification, now: Date, zone: Zone) {
        guard !whens.isEmpty, notification.rule.recurrence != nil else { return }
        let parser = WhenParser(now: now, systemZone: zone)
        // Without a lead (a minute or hour repeat) the occurrence fires before its item starts.
        let ahead = notification.rule.lead == 0 ? notification.alert.leadTime ?? 0 : 0
        for text in whens {
            guard let start = (try? parser.trigger(text))?.instant(systemZone: zone),
                  let found = notification.rule.occurrence(startingAt: start.addingTimeInterval(-ahead), systemZone: zone)
            else { continue }
            notification.rule.skipped.insert(found.local)
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
    private static func firstFire(_ when: String, _ options: [(String, String)], lead: Double?, now: Date, zone: Zone) throws -> Int64? {
        do throws(FieldError) {
            let options = options.map { (key: $0.0, value: $0.1) }
            return try ScheduleFields.upcoming(when: when, options: options, lead: lead, count: 1, now: now, systemZone: zone).first
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
        var fields = fields
        fields.lead = alert.leadTime
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

/// The notifications an import may be reading again: those made from items with its UIDs,
/// and Chime's own that chime export wrote (UID `ID@chime`). Each matches one alarm at most.
struct KnownItems {
    enum Match {
        /// Nothing has its UID, occurrence and alarm.
        case new
        /// This one: the import updates it.
        case existing(ScheduledNotification)
        /// It was completed in Chime, and stays so.
        case completed
    }

    private var linked: [String: [ScheduledNotification]]
    private var taken: Set<String> = []

    init(store: Store, commits: CommitQueue, uids: Set<String>) throws(DBusError) {
        let rows = try commits.read { () throws(StoreError) in try store.linked(uids: uids) }
        linked = Dictionary(grouping: rows) { $0.link?.uid ?? "" }
        for uid in uids where uid.hasSuffix(CalendarText.ownUIDSuffix) && linked[uid] == nil {
            let id = String(uid.dropLast(CalendarText.ownUIDSuffix.count))
            if let own = try commits.read({ () throws(StoreError) in try store.notification(id: id) }), own.link == nil {
                linked[uid] = [own]
            }
        }
    }

    /// The notifications of the series `uid` (no RECURRENCE-ID) still scheduled that this
    /// import has not matched: an override read alone changes them.
    mutating func unmatchedSeries(of uid: String) -> [ScheduledNotification] {
        let found = (linked[uid] ?? []).filter {
            !taken.contains($0.id) && ($0.link?.recurrence ?? "") == "" && $0.state == .scheduled && $0.completed == nil
        }
        taken.formUnion(found.map(\.id))
        return found
    }

    /// What `notification`, made from a calendar item, stands for here.
    mutating func match(_ notification: ScheduledNotification) -> Match {
        guard let link = notification.link, let candidates = linked[link.uid] else { return .new }
        // One of Chime's own has no link: the UID alone names it.
        guard let found = candidates.first(where: { !taken.contains($0.id) && ($0.link?.isSameAlarm(as: link) ?? true) }) else {
            return .new
        }
        taken.insert(found.id)
        return found.completed == nil ? .existing(found) : .completed
    }
}

extension ScheduledNotification {
    /// Takes over what the notification it updates has lived through: its id, when it was
    /// made, its firings and the lineage it belongs to.
    mutating func adopt(_ old: ScheduledNotification) {
        (id, created, lastFired, fireCount, origin) = (old.id, old.created, old.lastFired, old.fireCount, old.origin)
    }
}
