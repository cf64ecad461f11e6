import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import Logging

/// ``ChimeAPI/Scheduler1`` served: ``methods`` is the table of the contract's
/// methods (``ChimeAPI/Scheduler1``), each answered by a named function that decodes
/// the call, asks the core and encodes the answer. Presses go to ``PressHandler``,
/// badges to ``Badges``.
final class MethodTable {
    private let server: NotificationPoster
    let presenter: Presenter
    let store: Store
    /// Every change of the schedule goes through it.
    let schedule: Schedule
    let commits: CommitQueue
    /// The user's config in force: a request's category is checked against it.
    let settings: Settings
    private let badges: Badges
    let presses: PressHandler
    /// The calendars followed: AddCalendar, RemoveCalendar and Calendars.
    let calendars: Calendars
    let logger: Logger
    let now: () -> Date

    init(server: NotificationPoster, presenter: Presenter, store: Store, schedule: Schedule, commits: CommitQueue,
         settings: Settings, badges: Badges, presses: PressHandler, calendars: Calendars, logger: Logger, now: @escaping () -> Date) {
        (self.server, self.presenter, self.store, self.schedule, self.commits) = (server, presenter, store, schedule, commits)
        (self.settings, self.badges, self.presses, self.calendars, self.logger, self.now) = (settings, badges, presses, calendars, logger, now)
    }

    // MARK: - The table

    /// How a method answers: at once, or later through its responder (after a commit).
    private enum Answer {
        case now((MethodTable) -> (MethodCall) throws(DBusError) -> [Value])
        case later((MethodTable) -> (MethodCall, Responder) throws(DBusError) -> Void)
    }

    /// A line per method: what the contract declares, and the function that answers it.
    private static var methods: [(MethodDeclaration, Answer)] {
        [
            (Scheduler1.presentNow, .now(presentNow)),
            (Scheduler1.presentNowSimple, .now(presentNowSimple)),
            (Scheduler1.schedule, .later(schedule)),
            (Scheduler1.scheduleSimple, .later(scheduleSimple)),
            (Scheduler1.cancel, .later(cancel)),
            (Scheduler1.cancelAll, .later(cancelAll)),
            (Scheduler1.cancelMatching, .later(cancelMatching)),
            (Scheduler1.get, .now(get)),
            (Scheduler1.getJSON, .now(getJSON)),
            (Scheduler1.list, .now(list)),
            (Scheduler1.listJSON, .now(listJSON)),
            (Scheduler1.history, .now(history)),
            (Scheduler1.historyJSON, .now(historyJSON)),
            (Scheduler1.historyOf, .now(historyOf)),
            (Scheduler1.nextFireTimes, .now(nextFireTimes)),
            (Scheduler1.nextFireTimestamps, .now(nextFireTimestamps)),
            (Scheduler1.occurrences, .now(occurrences)),
            (Scheduler1.skip, .later(skip)),
            (Scheduler1.status, .now(status)),
            (Scheduler1.setBadge, .later(setBadge)),
            (Scheduler1.getBadge, .now(getBadge)),
            (Scheduler1.invokeAction, .now(invokeAction)),
            (Scheduler1.getAppSettings, .now(getAppSettings)),
            (Scheduler1.update, .later(update)),
            (Scheduler1.updateSimple, .later(updateSimple)),
            (Scheduler1.snooze, .later(snooze)),
            (Scheduler1.importICalendar, .later(importICalendar)),
            (Scheduler1.importICalendarPart, .later(importICalendarPart)),
            (Scheduler1.exportICalendar, .now(exportICalendar)),
            (Scheduler1.addCalendar, .later(addCalendar)),
            (Scheduler1.removeCalendar, .later(removeCalendar)),
            (Scheduler1.calendars, .now(listCalendars)),
            (Scheduler1.discoverCalendars, .later(discoverCalendars)),
            (Scheduler1.syncCalendar, .later(syncCalendar)),
            (Scheduler1.setCalendarPassword, .later(setCalendarPassword)),
        ]
    }

    /// The interface to export at ``ChimeAPI/ChimeBus/path``.
    var interface: Interface {
        let methods = Self.methods.map { declaration, answer in
            switch answer {
            case .now(let answer):
                Method(declaration, handler: .immediate { [unowned self] call throws(DBusError) in try answer(self)(call) })
            case .later(let answer):
                Method(declaration, handler: .deferred { [unowned self] call, responder throws(DBusError) in
                    try answer(self)(call, responder)
                })
            }
        }
        return Interface(Scheduler1.name, methods: methods, signals: Scheduler1.signals.map(\.signal),
                         properties: [Scheduler1.version.property])
    }

    // MARK: - Showing and scheduling

    private func presentNow(_ call: MethodCall) throws(DBusError) -> [Value] {
        var replaces: String?
        let alert = try AlertDecoding.decode(typed: try call.entries(0)) { key, value throws(FieldError) in
            guard key == Self.replacesKey else { return false }
            replaces = try Self.replaces(value)
            return true
        }
        try checkCategory(of: alert)
        return [.string(try present(alert, replacing: replaces))]
    }

    private func presentNowSimple(_ call: MethodCall) throws(DBusError) -> [Value] {
        var replaces: String?
        let alert = try AlertDecoding.decode(title: call.string(0), body: call.string(1), options: try call.stringEntries(2)) { key, text in
            guard key == Self.replacesKey else { return false }
            replaces = text
            return true
        }
        try checkCategory(of: alert)
        return [.string(try present(alert, replacing: replaces))]
    }

    private func schedule(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let notification = try ScheduledNotification.requested(try call.entries(0), now: now(), zone: .current)
        try checkCategory(of: notification.alert)
        schedule(notification, responder)
    }

    private func scheduleSimple(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        var fields = ScheduleFields()
        fields.when = call.string(0)
        let alert = try AlertDecoding.decode(title: call.string(1), body: call.string(2), options: try call.stringEntries(3)) {
            key, text throws(FieldError) in
            guard key != NotificationKey.when.rawValue else { throw FieldError(key, "is given as an argument of its own, not as an option.") }
            if try fields.place.set(key, text: text) { return true }
            return try fields.set(key, text: text)
        }
        try checkCategory(of: alert)
        schedule(try ScheduledNotification.requested(alert, fields, now: now(), zone: .current), responder)
    }

    /// Refuses a category the request names that chimed does not know (``ConfigInForce/check(category:)``).
    /// ImportICalendar is not checked: a calendar item is kept whole, and fires without buttons.
    func checkCategory(of alert: Alert) throws(DBusError) {
        guard let name = alert.category else { return }
        do throws(FieldError) { try settings.config.check(category: name) } catch { throw .invalidArgs(error.description) }
    }

    private func schedule(_ notification: ScheduledNotification, _ responder: Responder) {
        schedule.add(notification) { [unowned self] result in
            switch result {
            case .success(let notification):
                // Trace: one line per call would fill a log at thousands of calls a second.
                self.logger.trace("Scheduled \(notification.id) for \(notification.nextFire.map { "\($0)" } ?? "never"): \(notification.alert.title)")
                responder.reply([.string(notification.id)])
            case .failure(let error):
                responder.fail(.refused("Not scheduled", error))
            }
        }
    }

    // MARK: - Cancelling

    private func cancel(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let id = call.string(0)
        schedule.cancel(ids: [id], at: now(), detail: "") { [unowned self] result in
            if case .success(let deleted) = result, deleted.isEmpty { return responder.fail(ChimeError.notFound(id)) }
            self.answerCancel(result, responder) { _ in [] }
        }
    }

    private func cancelAll(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        schedule.cancelAll(at: now(), detail: "All scheduled were cancelled.") { [unowned self] result in
            self.answerCancel(result, responder) { [.uint32(UInt32($0.count))] }
        }
    }

    private func cancelMatching(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let key = call.string(0), value = call.string(1)
        schedule.cancel(matchingKey: key, value: value, at: now(), detail: "Matched \(key)=\(value).") { [unowned self] result in
            self.answerCancel(result, responder) { [.uint32(UInt32($0.count))] }
        }
    }

    /// Answers a cancel with `reply` made from the ids that went, once they are gone from
    /// the screen too.
    private func answerCancel(_ result: Result<[String], StoreError>, _ responder: Responder, reply: ([String]) -> [Value]) {
        switch result {
        case .success(let deleted):
            presenter.withdraw(ids: deleted)
            if !deleted.isEmpty { logger.info("Cancelled \(deleted.count).") }
            responder.reply(reply(deleted))
        case .failure(let error):
            responder.fail(.refused("Nothing cancelled", error))
        }
    }

    // MARK: - Reading

    private func get(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.variantDictionary(try notification(call.string(0)))]
    }

    private func getJSON(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.string(NotificationEncoding.jsonText(.variantDictionary(try notification(call.string(0)))))]
    }

    private func list(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.array(element: "a{sv}", try list().map { .variantDictionary($0) })]
    }

    private func listJSON(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.string(NotificationEncoding.json(try list()))]
    }

    private func history(_ call: MethodCall) throws(DBusError) -> [Value] {
        let limit = try HistoryEncoding.limit(call.arguments[0])
        return [HistoryEncoding.array(try commits.read { () throws(StoreError) in try store.history(limit: limit) }, zone: .current)]
    }

    private func historyJSON(_ call: MethodCall) throws(DBusError) -> [Value] {
        let limit = try HistoryEncoding.limit(call.arguments[0])
        return [.string(HistoryEncoding.json(try commits.read { () throws(StoreError) in try store.history(limit: limit) }, zone: .current))]
    }

    private func historyOf(_ call: MethodCall) throws(DBusError) -> [Value] {
        let id = call.string(0)
        let limit = try HistoryEncoding.limit(call.arguments[1])
        guard let events = try commits.read({ () throws(StoreError) in try store.history(of: id, limit: limit) }) else {
            throw ChimeError.notFound(id)
        }
        return [HistoryEncoding.array(events, zone: .current)]
    }

    private func nextFireTimes(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.stringArray(try nextFireTimes(call).map { NotificationEncoding.isoText($0, zone: .current) })]
    }

    private func nextFireTimestamps(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.array(element: "x", try nextFireTimes(call).map { .int64(NotificationEncoding.seconds($0)) })]
    }

    private func status(_ call: MethodCall) throws(DBusError) -> [Value] {
        let zone = Zone.current
        let status = DaemonStatus(store: store, schedule: schedule, presenter: presenter, server: server, config: settings.config,
                                  calendars: calendars, zone: zone)
        return [.variantDictionary(status.entries { NotificationEncoding.isoText(Date(seconds: $0), zone: zone) })]
    }

    // MARK: - Badges and actions

    private func setBadge(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        let entry = try Badges.desktopEntry(call.string(0))
        guard case .uint32(let count) = call.arguments[1] else { throw .invalidArgs("count: expected u.") }
        badges.set(entry, Int(count)) { error in
            if let error { responder.fail(error) } else { responder.reply([]) }
        }
    }

    private func getBadge(_ call: MethodCall) throws(DBusError) -> [Value] {
        [.uint32(UInt32(clamping: try badges.count(of: try Badges.desktopEntry(call.string(0)))))]
    }

    private func getAppSettings(_ call: MethodCall) throws(DBusError) -> [Value] {
        let app = ConfigReader.appID(call.string(0))
        guard !app.isEmpty else { throw .invalidArgs("app: empty; give a desktop entry id such as org.example.App.") }
        return [.variantDictionary((settings.config.apps[app] ?? AppSettings()).entries)]
    }

    private func invokeAction(_ call: MethodCall) throws(DBusError) -> [Value] {
        let id = call.string(0), key = call.string(1)
        guard let alert = try alert(for: id) else { throw ChimeError.notFound(id) }
        let keys = settings.expand(alert).allActions.map(\.key)
        guard keys.contains(key) else {
            throw .invalidArgs("'\(key)' is not an action of \(id); it has \(keys.isEmpty ? "none" : keys.joined(separator: ", ")).")
        }
        // A snooze puts off what is on screen; before the reminder fires there is nothing to
        // put off, and a pressed copy would ring as well as the reminder itself.
        let press = settings.press(id: id, key: key, alert: alert, kind: .scheduled)
        if case .snooze = press.handler, presenter.alert(for: id) == nil,
           try commits.read({ () throws(StoreError) in try store.notification(id: id) })?.lastFired == nil {
            throw DBusError(name: ChimeError.notShown, message: "Notification '\(id)' has not fired yet, so '\(key)' "
                + "has nothing to put off; Update changes when it fires.")
        }
        presses.pressed(press)
        presenter.dismiss(id: id, after: key)
        return []
    }
}

// MARK: - What the answers are made of

extension MethodTable {
    /// One notification's description, NotFound when there is none with that id. Its state
    /// is `pending` while an occurrence waits for a notification server, as `List` says.
    private func notification(_ id: String) throws(DBusError) -> [(String, Value)] {
        guard let notification = try commits.read({ () throws(StoreError) in try store.notification(id: id) }) else {
            throw ChimeError.notFound(id)
        }
        let pending = presenter.waiting.first { $0.id == id && $0.kind != .notice }
        return NotificationEncoding.entries(notification, zone: .current, waiting: schedule.isWaiting(notification),
                                            pendingSince: pending?.due)
    }

    /// What is scheduled and what is due but waiting for a notification server (state
    /// `pending`), by time: a pending one by when it came due, so it comes before what is
    /// still to come; places, which have no time, last.
    private func list() throws(DBusError) -> [[(String, Value)]] {
        let zone = Zone.current
        // The store gives them by time already, places last.
        let scheduled = try commits.read { () throws(StoreError) in try store.scheduled() }.map {
            ($0.nextFire, NotificationEncoding.entries($0, zone: zone, waiting: schedule.isWaiting($0)))
        }
        // Chime's own notices (a summary of missed ones stands for those listed already)
        // have no id to act on.
        let pending = presenter.waiting.filter { $0.kind != .notice }.sorted { ($0.due, $0.seq) < ($1.due, $1.seq) }
        // A merge, not a sort: the scheduled ones may be a million.
        var merged: [[(String, Value)]] = []
        merged.reserveCapacity(scheduled.count + pending.count)
        var next = pending[...]
        for (time, entries) in scheduled {
            while let first = next.first, time.map({ first.due <= $0 }) ?? true {
                merged.append(NotificationEncoding.pending(first.id, first.alert, due: first.due, zone: zone))
                next.removeFirst()
            }
            merged.append(entries)
        }
        merged += next.map { NotificationEncoding.pending($0.id, $0.alert, due: $0.due, zone: zone) }
        return merged
    }

    /// The alert of a notification on screen or on its way there, or of one in the store.
    private func alert(for id: String) throws(DBusError) -> Alert? {
        if let alert = presenter.alert(for: id) { return alert }
        return try commits.read { () throws(StoreError) in try store.notification(id: id) }?.alert
    }

    /// The fire times `NextFireTimes` and `NextFireTimestamps` answer with.
    private func nextFireTimes(_ call: MethodCall) throws(DBusError) -> [Date] {
        guard case .uint32(let count) = call.arguments[2] else { throw .invalidArgs("count: expected u.") }
        let options = try call.stringEntries(1)
        do throws(FieldError) {
            return try ScheduleFields.upcoming(when: call.string(0), options: options, count: count, now: now(), systemZone: .current)
        } catch {
            throw .invalidArgs(error.description)
        }
    }
}
