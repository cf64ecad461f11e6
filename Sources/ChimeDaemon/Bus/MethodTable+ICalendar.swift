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

    /// Schedules the components of `text`, each whole or not at all, in one transaction
    /// (``CalendarMerge``); `answer` makes the reply.
    private func importCalendar(_ text: String, lines: [Int], _ responder: Responder,
                                answer: @escaping (CalendarMerge.Outcome) -> [Value]) throws(DBusError) {
        try Self.openLibical()
        let allDay = settings.config.allDayTime
        guard let components = CalendarText.components(of: text, lines: lines, allDay: (allDay.hour, allDay.minute)) else {
            throw .invalidArgs("text: not iCalendar: " + CalendarText.whyNotCalendar(text))
        }
        guard lines.isEmpty || lines.count == components.count else {
            throw .invalidArgs("lines: \(lines.count) given for \(components.count) VEVENT and VTODO components.")
        }
        var merge = try CalendarMerge(store: store, commits: commits, components: components, now: now(), zone: .current)
        merge.read(components)
        merge.commit(to: schedule) { [unowned self] result in
            switch result {
            case .success(let outcome):
                let left = outcome.refused.count + outcome.skipped.count
                self.logger.info("Imported \(outcome.ids.count - outcome.updated.count) new and \(outcome.updated.count) updated from iCalendar, \(left) components not.")
                responder.reply(answer(outcome))
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

    /// Failed, with the loader's reason, when libical 3 is not installed.
    static func openLibical() throws(DBusError) {
        if let failure = CalendarText.loadFailure() { throw .failed(failure + ".") }
    }
}
