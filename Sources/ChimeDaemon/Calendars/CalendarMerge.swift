import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import ICS
import Localization

/// Calendar text read into the schedule: what ImportICalendar and a followed calendar's
/// files come to, staged as one change of the schedule.
///
/// An item Chime has already (the same UID, occurrence and alarm; for one chime export
/// wrote, the notification its UID names) is updated in place under its id, one the
/// calendar did not change is not written, and one completed in Chime stays completed.
/// What a file made that the file no longer has is removed with it.
struct CalendarMerge {
    /// What it came to: the ids scheduled (new and updated, in the order read), those of
    /// them that were there already, and the sentences of components refused and skipped.
    struct Outcome {
        var ids: [String] = []
        /// The notifications of `ids`, as stored.
        var notifications: [ScheduledNotification] = []
        var updated: [String] = []
        var refused: [String] = []
        var skipped: [String] = []
        /// The ids removed with the items or files they were made from.
        var removed: [String] = []
    }

    private enum Made {
        case new(Int)
        case updated(String)
    }

    private var known: KnownItems
    private let instant: Date
    private let zone: Zone
    private var outcome = Outcome()
    /// Each notification made, in order: a new one (by its place in `new`) or one updated (by id).
    private var order: [Made] = []
    private var new: [ScheduledNotification] = []
    private var updated: [ScheduledNotification] = []
    /// What the notifications updated were, by id: one the calendar did not change is not written.
    private var before: [String: ScheduledNotification] = [:]
    /// The occurrences that overrides (RECURRENCE-ID) replace or cancel, by the UID of their series.
    private var overridden: [String: [String]] = [:]
    private var removed: [String] = []
    /// The file each item (UID and RECURRENCE-ID) was read from.
    private var sources: [String: String] = [:]

    /// Ready to read `components` (those of every text to be read), from files `sources`
    /// (the files read again, whose other items are then removed).
    init(store: Store, commits: CommitQueue, components: [ImportComponent], sources: Set<String> = [], now: Date, zone: Zone)
        throws(DBusError) {
        known = try KnownItems(store: store, commits: commits, uids: Set(components.compactMap { try? $0.plan.get().uid }),
                               sources: sources)
        (instant, self.zone) = (now, zone)
    }

    /// Reads `components`, made from `source` (empty: no file, such as standard input);
    /// every alarm of a component is decoded and checked before any is kept: a component
    /// is stored whole, or not at all. Returns the sentences of the components refused.
    @discardableResult
    mutating func read(_ components: [ImportComponent], source: String = "") -> [String] {
        let refusedBefore = outcome.refused.count
        for component in components {
            do {
                let plan = try component.plan.get()
                // A vdir holds each item in one file; a second (a copy, a link) is not read.
                if !source.isEmpty, !plan.uid.isEmpty {
                    let key = plan.uid + "\n" + plan.recurrenceID
                    if let first = sources[key], first != source {
                        let name = first.split(separator: "/").last.map(String.init) ?? first
                        throw ImportRefusal.refused("\(name) holds the same item (its UID); each item is read from one file")
                    }
                    sources[key] = source
                }
                if let replaced = plan.replaces, !plan.uid.isEmpty { overridden[plan.uid, default: []].append(replaced) }
                // Each rule is read once: the requests with a time come in the order their
                // first fires were asked for (ImportPlan.requests), and are made with it.
                var rules: [FireRule] = []
                let requests = try plan.requests { [instant, zone] when, options, lead in
                    let rule = try Self.rule(when, options, lead: lead, now: instant, zone: zone)
                    guard let first = rule.upcoming(from: instant, count: 1, systemZone: zone).first else { return nil }
                    rules.append(rule)
                    return NotificationEncoding.seconds(first)
                }
                let made = try requests.enumerated().map { index, asked throws(DBusError) in
                    let (request, alarm) = (asked.request, asked.alarm)
                    let rule = index < rules.count && request.contains(where: { $0.0 == "when" }) ? rules[index] : nil
                    var entries = request.map { (key: $0.0, value: $0.1) }
                    // A followed calendar's reminders have Complete and Remind, which write
                    // back into the item, unless the item names buttons of its own.
                    if !source.isEmpty, !entries.contains(where: { $0.key == "category" || $0.key == "actions" }) {
                        entries.append((key: "category", value: .string(Category.reminder.name)))
                    }
                    var notification = try ScheduledNotification.requested(entries, now: instant, zone: zone, rule: rule)
                    Self.skip(plan.skipped, of: &notification, now: instant, zone: zone)
                    if !plan.uid.isEmpty {
                        notification.link = CalendarLink(uid: plan.uid, recurrence: plan.recurrenceID, alarm: alarm, source: source)
                    }
                    return notification
                }
                outcome.skipped += plan.notes.map { ImportRefusal.skipped($0).sentence(component.label) }
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
                    outcome.skipped.append(ImportRefusal.skipped(localized("it was completed in Chime")).sentence(component.label))
                }
            } catch let refusal as ImportRefusal {
                // A refused item of a file read again keeps what it made before: a typo in
                // an editor must not cost the user their reminder.
                if case .refused = refusal, !component.uid.isEmpty { known.keep(uid: component.uid, recurrence: component.recurrenceID) }
                switch refusal {
                case .skipped: outcome.skipped.append(refusal.sentence(component.label))
                case .refused: outcome.refused.append(refusal.sentence(component.label))
                }
            } catch let error as DBusError {
                if !component.uid.isEmpty { known.keep(uid: component.uid, recurrence: component.recurrenceID) }
                outcome.refused.append(ImportRefusal.refused(error.message).sentence(component.label))
            } catch {
                outcome.refused.append(ImportRefusal.refused("\(error)").sentence(component.label))
            }
        }
        return Array(outcome.refused[refusedBefore...])
    }

    /// Removes what the files `sources` made that this merge has not read again: the
    /// files are gone, or no longer have those items.
    mutating func removeUnread(from sources: Set<String>) {
        removed += known.unread(from: sources).map(\.id)
    }

    /// Stages the merge in `schedule` as one transaction, with `also` in it; `done` hears
    /// what it came to.
    mutating func commit(to schedule: Schedule, also: ((Store.Transaction) throws -> Void)? = nil,
                         done: @escaping (Result<Outcome, StoreError>) -> Void) {
        let (instant, zone) = (self.instant, self.zone)
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
        var outcome = self.outcome
        let order = self.order
        // The answer, in the order read, once what changed is stored.
        let finish = { (stored: [ScheduledNotification], written: [String: ScheduledNotification], removed: [String]) in
            for entry in order {
                switch entry {
                case .new(let index):
                    outcome.ids.append(stored[index].id)
                    outcome.notifications.append(stored[index])
                // One that went (cancelled, say) while this was staged is not updated.
                case .updated(let id):
                    guard let notification = written[id] ?? unchanged[id] else { continue }
                    outcome.ids.append(id)
                    outcome.updated.append(id)
                    outcome.notifications.append(notification)
                }
            }
            outcome.removed = removed
            return outcome
        }
        guard !new.isEmpty || !updated.isEmpty || !removed.isEmpty || also != nil else { return done(.success(finish([], [:], []))) }
        schedule.merge(new: new, updated: updated, removed: removed, detail: "Read again from a calendar.", at: instant, also: also) { result in
            done(result.map { stored in
                finish(stored.new, Dictionary(stored.updated.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first }), stored.removed)
            })
        }
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

    /// The rule of one alarm as ``ImportPlan`` asks for it; chimed's refusal as the component's.
    private static func rule(_ when: String, _ options: [(String, String)], lead: Double?, now: Date, zone: Zone) throws -> FireRule {
        do throws(FieldError) {
            return try ScheduleFields.rule(when: when, options: options.map { (key: $0.0, value: $0.1) }, lead: lead, now: now, systemZone: zone)
        } catch {
            throw ImportRefusal.refused(error.description)
        }
    }
}

/// The notifications a merge may be reading again: those made from items with its UIDs or
/// from the files it reads again, and Chime's own that chime export wrote (UID `ID@chime`).
/// Each matches one alarm at most.
struct KnownItems {
    enum Match {
        /// Nothing has its UID, occurrence and alarm.
        case new
        /// This one: the merge updates it.
        case existing(ScheduledNotification)
        /// It was completed in Chime, and stays so.
        case completed
    }

    private var linked: [String: [ScheduledNotification]]
    private var taken: Set<String> = []
    /// The occurrences (RECURRENCE-ID, empty for the item) of items read again that cannot
    /// be read now, by UID: what they made stays.
    private var kept: [String: Set<String>] = [:]

    init(store: Store, commits: CommitQueue, uids: Set<String>, sources: Set<String> = []) throws(DBusError) {
        var rows = try commits.read { () throws(StoreError) in try store.linked(uids: uids) }
        if !sources.isEmpty {
            let ids = Set(rows.map(\.id))
            rows += try commits.read { () throws(StoreError) in try store.linked(sources: sources) }.filter { !ids.contains($0.id) }
        }
        linked = Dictionary(grouping: rows) { $0.link?.uid ?? "" }
        for uid in uids where uid.hasSuffix(CalendarText.ownUIDSuffix) && linked[uid] == nil {
            let id = String(uid.dropLast(CalendarText.ownUIDSuffix.count))
            if let own = try commits.read({ () throws(StoreError) in try store.notification(id: id) }), own.link == nil {
                linked[uid] = [own]
            }
        }
    }

    /// The notifications of the series `uid` (no RECURRENCE-ID) still scheduled that this
    /// merge has not matched: an override read alone changes them.
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

    /// Keeps what item `uid`, occurrence `recurrence` (empty: the item itself), made: it is
    /// still in its file.
    mutating func keep(uid: String, recurrence: String) {
        kept[uid, default: []].insert(recurrence)
    }

    /// The notifications still to fire made from the files `sources` that this merge has
    /// neither matched nor kept; those done stay, with their history.
    func unread(from sources: Set<String>) -> [ScheduledNotification] {
        linked.values.joined().filter { notification in
            guard let link = notification.link, sources.contains(link.source), !taken.contains(notification.id),
                  notification.state == .scheduled, notification.completed == nil else { return false }
            return kept[link.uid]?.contains(link.recurrence) != true
        }
    }
}

extension ScheduledNotification {
    /// Takes over what the notification it updates has lived through: its id, when it was
    /// made, its firings and the lineage it belongs to. An occurrence it has already rung
    /// is not rung again: an item read again a moment after its alarm (edited, or at a
    /// restart) would otherwise find that alarm still within its minute of grace.
    mutating func adopt(_ old: ScheduledNotification, systemZone: Zone = .current) {
        (id, created, lastFired, fireCount, origin) = (old.id, old.created, old.lastFired, old.fireCount, old.origin)
        guard let fired = old.lastFired, let next = nextFire, next <= fired else { return }
        let after = rule.recurrence == nil ? nil : rule.firstOccurrence(onOrAfter: fired.addingTimeInterval(0.001), systemZone: systemZone)
        (nextIndex, nextFire) = (after?.index ?? nextIndex, after?.date)
        state = after == nil ? .done : .scheduled
    }
}
