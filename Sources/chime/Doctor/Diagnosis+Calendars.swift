import ChimeAPI
import Localization

// MARK: - Calendars: the folders and CalDAV collections chimed follows

extension Diagnosis {
    /// What chimed says of each calendar it follows: a section of rows, a warning for
    /// each file or item it cannot read, each folder that is gone and each server that
    /// cannot be reached now, a problem for a calendar it cannot follow or sync at all.
    mutating func checkCalendars(_ lookups: BusLookups) {
        guard daemon?.running == true, daemon?.mismatch == nil,
              let reply = try? lookups.call(Self.chimeName, Self.chimePath, Scheduler1.name.rawValue, Scheduler1.calendars.name.rawValue)
        else { return }
        check((reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(CalendarText.init))
    }

    /// The rows, warnings and problems of `calendars`, as chimed described them.
    mutating func check(_ calendars: [CalendarText]) {
        self.calendars = calendars
        for calendar in calendars {
            if calendar.isCalDAV {
                checkSync(of: calendar)
            } else {
                switch calendar.state {
                case "watching", "reading": break
                case "missing":
                    warnings.append(Note { localized("Calendar %1$s: its folder %2$s is gone; its reminders are kept until it is back, or until 'chime calendar remove %1$s'.", calendar.name, calendar.location) })
                default:
                    // TRANSLATORS: %2$s is chimed's reason, in English.
                    problems.append(Note { localized("Calendar %1$s cannot be followed: %2$s", calendar.name, calendar.state) })
                }
            }
            let shown = 3
            for problem in calendar.problems.prefix(shown) {
                // TRANSLATORS: %2$s is chimed's sentence about one file, in English.
                warnings.append(Note { localized("Calendar %1$s: %2$s", calendar.name, problem) })
            }
            if calendar.problems.count > shown {
                let more = calendar.problems.count - shown
                if calendar.isCalDAV {
                    warnings.append(Note { pluralized("Calendar %1$s: %2$d more item has a problem; 'chime calendar list' names it.",
                                                      "Calendar %1$s: %2$d more items have problems; 'chime calendar list' names them.",
                                                      count: more, calendar.name, more) })
                } else {
                    warnings.append(Note { pluralized("Calendar %1$s: %2$d more file has a problem; 'chime calendar list' names it.",
                                                      "Calendar %1$s: %2$d more files have problems; 'chime calendar list' names them.",
                                                      count: more, calendar.name, more) })
                }
            }
        }
    }

    /// A CalDAV calendar whose server cannot be reached is a warning, since chimed asks
    /// again by itself; one the server refuses (the password, the calendar gone) is a
    /// problem, since it waits for the user. Either holds back the presses still to send.
    private mutating func checkSync(of calendar: CalendarText) {
        let reason = calendar.error ?? calendar.state
        switch calendar.state {
        case "synced", "syncing": break
        case "offline":
            // TRANSLATORS: %2$s is chimed's reason, in English.
            warnings.append(Note { localized("Calendar %1$s is offline; chimed tries again at its next sync. %2$s", calendar.name, reason) })
        default:
            // TRANSLATORS: %2$s is chimed's reason, in English.
            problems.append(Note { localized("Calendar %1$s cannot be synced: %2$s", calendar.name, reason) })
        }
        if !calendar.writable {
            warnings.append(Note { localized("Calendar %1$s is read-only for %2$s on the server: what you press on its reminders stays on this machine.",
                                             calendar.name, calendar.user ?? "") })
        }
        if calendar.queued > 0, !["synced", "syncing"].contains(calendar.state) {
            warnings.append(Note { pluralized("Calendar %1$s: %2$d press waits to be written to the server.",
                                              "Calendar %1$s: %2$d presses wait to be written to the server.",
                                              count: calendar.queued, calendar.name, calendar.queued) })
        }
    }

    /// A row per calendar: its name, then its state, reminders to come and folder or address
    /// (with the user a CalDAV calendar is read as).
    static func rows(_ calendars: [CalendarText]) -> [(String, String)] {
        guard !calendars.isEmpty else {
            return [(localized("followed"), localized("none (chime calendar add URL --user NAME, or --vdir DIR)"))]
        }
        return calendars.map { calendar in
            // TRANSLATORS: a CalDAV calendar's user and address: "alice at https://cloud.example.org/…".
            let location = calendar.isCalDAV && calendar.user?.isEmpty == false
                ? localized("%1$s at %2$s", calendar.user ?? "", calendar.location) : calendar.location
            return (calendar.name, pluralized("%1$s, %2$d reminder to come, %3$s", "%1$s, %2$d reminders to come, %3$s", count: calendar.reminders,
                                              calendar.stateText, calendar.reminders, location))
        }
    }
}
