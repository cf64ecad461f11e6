import ChimeAPI
import Localization

// MARK: - Calendars: the folders chimed follows

extension Diagnosis {
    /// What chimed says of each calendar it follows: a section of rows, a warning for
    /// each file it cannot read and each folder that is gone, a problem for a calendar it
    /// cannot follow at all.
    mutating func checkCalendars(_ lookups: BusLookups) {
        guard daemon?.running == true, daemon?.mismatch == nil,
              let reply = try? lookups.call(Self.chimeName, Self.chimePath, Scheduler1.name.rawValue, Scheduler1.calendars.name.rawValue)
        else { return }
        let calendars = (reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(CalendarText.init)
        self.calendars = calendars
        for calendar in calendars {
            switch calendar.state {
            case "watching", "reading": break
            case "missing":
                warnings.append(Note { localized("Calendar %1$s: its folder %2$s is gone; its reminders are kept until it is back, or until 'chime calendar remove %1$s'.", calendar.name, calendar.location) })
            default:
                // TRANSLATORS: %2$s is chimed's reason, in English.
                problems.append(Note { localized("Calendar %1$s cannot be followed: %2$s", calendar.name, calendar.state) })
            }
            let shown = 3
            for problem in calendar.problems.prefix(shown) {
                // TRANSLATORS: %2$s is chimed's sentence about one file, in English.
                warnings.append(Note { localized("Calendar %1$s: %2$s", calendar.name, problem) })
            }
            if calendar.problems.count > shown {
                let more = calendar.problems.count - shown
                warnings.append(Note { pluralized("Calendar %1$s: %2$d more file has a problem; 'chime calendar list' names it.",
                                                  "Calendar %1$s: %2$d more files have problems; 'chime calendar list' names them.",
                                                  count: more, calendar.name, more) })
            }
        }
    }

    /// A row per calendar: its name, then its state, reminders to come and folder.
    static func rows(_ calendars: [CalendarText]) -> [(String, String)] {
        guard !calendars.isEmpty else { return [(localized("followed"), localized("none (chime calendar add --vdir DIR)"))] }
        return calendars.map { calendar in
            (calendar.name, pluralized("%1$s, %2$d reminder to come, %3$s", "%1$s, %2$d reminders to come, %3$s", count: calendar.reminders,
                                       calendar.stateText, calendar.reminders, calendar.location))
        }
    }
}
