import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// `AddCalendar`, `RemoveCalendar` and `Calendars`: the calendars chimed follows
/// (``Calendars``), as chime calendar adds, removes and lists them.
extension MethodTable {
    func addCalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        var name = ""
        for (key, value) in try call.entries(1) {
            switch key {
            case CalendarKey.name.rawValue:
                guard let text = value.unwrapped.stringValue else { throw .invalidArgs("name: expected s.") }
                name = text
            default:
                throw .invalidArgs("\(key): not an option of AddCalendar; it takes name.")
            }
        }
        try calendars.add(location: call.string(0), name: name) { [unowned self] result in
            switch result {
            case .success(let folder):
                // Answered once read, so that the caller can say what it holds.
                folder.whenRead { [unowned self] in
                    let count = self.calendars.reminderCounts()[folder.calendar.name] ?? 0
                    responder.reply([.variantDictionary(self.entries(of: folder, reminders: count))])
                }
            case .failure(let error): responder.fail(error)
            }
        }
    }

    func removeCalendar(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        try calendars.remove(name: call.string(0)) { result in
            switch result {
            case .success(let count): responder.reply([.uint32(UInt32(clamping: count))])
            case .failure(let error): responder.fail(error)
            }
        }
    }

    func listCalendars(_ call: MethodCall) throws(DBusError) -> [Value] {
        let counts = calendars.reminderCounts()
        return [.array(element: "a{sv}", calendars.folders.sorted { $0.calendar.name < $1.calendar.name }.map { folder in
            .variantDictionary(entries(of: folder, reminders: counts[folder.calendar.name] ?? 0))
        })]
    }

    /// One calendar as ``ChimeAPI/CalendarKey`` describes it.
    private func entries(of folder: VdirFolder, reminders: Int) -> [(String, Value)] {
        let state = switch folder.state {
        case .reading: "reading"
        case .watching: "watching"
        case .missing: "missing"
        case .failed(let sentence): sentence
        }
        let problems = folder.problems.sorted { $0.key < $1.key }.flatMap(\.value)
        var entries: [(CalendarKey, Value)] = [
            (.name, .string(folder.calendar.name)), (.kind, .string(folder.calendar.kind.rawValue)),
            (.location, .string(folder.calendar.location)), (.state, .string(state)),
            (.reminders, .uint32(UInt32(clamping: reminders))), (.problems, .stringArray(problems)),
        ]
        if let read = folder.lastRead {
            entries += [(.lastRead, .string(NotificationEncoding.isoText(read, zone: .current))),
                        (.lastReadTimestamp, .int64(NotificationEncoding.seconds(read)))]
        }
        return entries.map { ($0.0.rawValue, $0.1) }
    }
}
