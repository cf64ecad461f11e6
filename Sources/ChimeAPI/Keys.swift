/// The keys of a notification's `a{sv}`: what `PresentNow` and `Schedule` take, and what
/// `Get`, `List` and `Fired` describe it with.
public enum NotificationKey: String, CaseIterable, Sendable {
    case title, body, urgency, appName, desktopEntry, image, sound, category, defaultAction, expires, badge, actions, hints
    case userInfo, textDomain
    case actionOptions
    case location, leadTime
    case when, `repeat`, every, zone, floating, calendar, lateLimit, late
    case on, until, count, rrule, skipped
    case id, state, nextFire, nextFireLocal, lastFired, fireCount, created, origin, completed
    case lateBy
    case region, regionTriggersOnce, network

    /// Which request or answer has the key.
    public enum Part: Sendable {
        /// What a notification shows: PresentNow and Schedule take these.
        case alert
        /// When it fires: Schedule takes these too.
        case schedule
        /// Where it fires: Schedule takes these instead of when.
        case place
        /// What Get, List and Fired add.
        case state
        /// What Fired adds.
        case fired
    }

    public var part: Part {
        switch self {
        case .title, .body, .urgency, .appName, .desktopEntry, .image, .sound, .category, .defaultAction, .expires, .badge,
             .actions, .hints, .userInfo, .textDomain, .actionOptions, .location, .leadTime: .alert
        case .when, .repeat, .every, .zone, .floating, .calendar, .lateLimit, .late: .schedule
        case .on, .until, .count, .rrule: .schedule
        case .skipped: .state
        case .id, .state, .nextFire, .nextFireLocal, .lastFired, .fireCount, .created, .origin, .completed: .state
        case .lateBy: .fired
        case .region, .regionTriggersOnce, .network: .place
        }
    }

    /// The keys of one part, in the order the contract lists them.
    public static func keys(of part: Part) -> [NotificationKey] { allCases.filter { $0.part == part } }

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .title: "s, required"
        case .body: "s"
        case .urgency: "y 0-2, or s low|normal|critical"
        case .appName: "s"
        case .desktopEntry: "s"
        case .image: "s: icon name or file"
        case .sound: "s: a sound-theme name, \"default\", \"none\", or an absolute file path"
        case .category: "s: built in (reminder) or the user's config's, whose buttons it shows, or one of the notification "
            + "specification's (such as email.arrived) or x-VENDOR.NAME, passed on to the server; any other is InvalidArgs, "
            + "though a stored notification whose category the config no longer has still fires, without those buttons"
        case .defaultAction: "s: label of the \"default\" action; \"\" for none"
        case .expires: "integer milliseconds"
        case .badge: "integer >= 0"
        case .actions: "a(ss): key, label"
        case .hints: "a{sv}: passed to the server"
        case .userInfo: "a{sv}: string, integer, double or boolean values, handed back with every action"
        case .textDomain: "s: the app's gettext domain; title, body and labels are its msgids, translated in the session's "
            + "language when shown (%% for a literal %)"
        case .actionOptions: "a{sa{sv}}: options of buttons given in actions, by key: activationMode s (background, or "
            + "foreground: open the desktopEntry's app first), authenticationRequired b (run only in an unlocked session), "
            + "destructive b (shown last), icon s (an icon-theme name, shown instead of the label by a server with "
            + "action-icons); a category's buttons take theirs from the config"
        case .location: "s: where what it reminds of takes place, shown on the popup"
        case .leadTime: "d seconds: how long after it fires what it reminds of starts (negative: started before); the popup "
            + "says \"Starts in 15 min\" or \"Started 5 min ago\", counted from when it is shown. A repeat by days or longer "
            + "then counts from the item's start (when plus leadTime on when's clock) and fires each occurrence this long ahead "
            + "of it, whole days on the calendar (RFC 5545 3.3.6); when stays the first fire time"
        case .when: "s, required: a time as at(1) and date -d read it (15:00, 3pm, 1500, noon, tomorrow, \"fri 9:00\", \"next fri\", "
            + "\"dec 24 18:00\", 24.12.2026, \"in 2 hours\", \"now + 1 day\"; docs/scheduling.md has every form) or ISO 8601: "
            + "with an offset it is an instant, with [Zone/Name] a wall-clock time in that zone, without either a floating "
            + "wall-clock time that follows the system zone"
        case .repeat: "s: minute, hour, day, week, month, year (or hourly, daily, weekly, monthly, yearly)"
        case .every: "integer >= 1"
        case .zone: "s: IANA zone for wall-clock times"
        case .floating: "b"
        case .calendar: "s: gregorian, hebrew, islamic, ..."
        case .lateLimit: "seconds, or s duration such as \"10m\""
        case .late: "b, default false (\"true\" in ScheduleSimple and UpdateSimple): when may be in the past. Without it a "
            + "one-shot more than a minute in the past is InvalidArgs naming when (most often a typo, such as a wrong year), and a "
            + "repeat starts at its first occurrence from now; with it a one-shot in the past fires at once, marked late, and a "
            + "repeat starts at its first occurrence, firing what is past once, late. Not stored: Get does not return it"
        case .on: "s, with repeat: weekdays of a weekly repeat (\"mon,wed,fri\", \"weekdays\", \"weekends\"), or days of a "
            + "monthly one (\"2nd tue\", \"last fri\", \"last-day\")"
        case .until: "s, with repeat: the last date (all of that day) or time an occurrence may have, as when takes it"
        case .count: "integer >= 1, with repeat: how many occurrences in all, skipped ones included"
        case .rrule: "s: an RFC 5545 RRULE instead of repeat, every, on, until and count: FREQ, INTERVAL, COUNT, UNTIL, "
            + "every BY part (BYSECOND to BYMONTH, BYSETPOS), WKST, and RFC 7529's RSCALE=GREGORIAN with SKIP for a rule "
            + "without BY parts; Get and List return it for every repeat. A monthly or yearly one leaves out the months without its "
            + "first day (the 31st, 29 February) uncounted, as RFC 5545 does, where repeat takes their last day; SKIP=BACKWARD "
            + "takes the last day too, SKIP=FORWARD the next month's first"
        case .skipped: "ax: Unix times of the occurrences skipped with Skip"
        case .id: "s"
        case .state: "s: scheduled; done once nothing is to come; pending when an occurrence is due and waits for a notification server; "
            + "waiting: a place whose location source (GeoClue for a region, NetworkManager for a network) is not on the system bus "
            + "or refused access"
        case .nextFire: "x, Unix time; for a pending one without a next occurrence (and List's pending entries), when it came due"
        case .nextFireLocal: "s, ISO 8601 in the system zone"
        case .lastFired: "x, Unix time"
        case .fireCount: "u"
        case .created: "x, Unix time"
        case .origin: "s: the notification a snoozed copy came from"
        case .completed: "x, Unix time Complete was pressed"
        case .lateBy: "d, seconds after its due time"
        case .region: "a{sv}: fire on entering or leaving a circle instead of at a time (never with when): latitude d (-90 to 90), "
            + "longitude d (-180 to 180), radius d metres (more than 0, at most 100000), identifier s, notifyOnEntry b, "
            + "notifyOnExit b (neither means both); located through GeoClue. ScheduleSimple: \"LAT,LON,RADIUS\" with RADIUS in m "
            + "or km, plus region.identifier, region.notifyOnEntry, region.notifyOnExit"
        case .regionTriggersOnce: "b, default true: done after the first crossing that fires; false fires at every one"
        case .network: "a{sv}: fire on connecting to or leaving a network instead of at a time (never with when): name s (a "
            + "NetworkManager connection id or a Wi-Fi SSID), notifyOnEntry b, notifyOnExit b (neither means both). "
            + "ScheduleSimple: the name, plus network.notifyOnEntry, network.notifyOnExit"
        }
    }
}

/// The keys of the `a{sv}` `Status` answers with; optional ones are absent, not empty.
public enum StatusKey: String, CaseIterable, Sendable {
    case version, interface, pid, store, scheduled, pending, timeZone, nextFire, nextFireTimestamp, notificationServer
    case capabilities, localSound, lastLocalSound, backup, backupTimestamp, recovery
    case locationSource, networkSource
    case config, categories, appSettings, configErrors
    case calendars, calendarProblems

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .version: "s"
        case .interface: "s"
        case .pid: "u"
        case .store: "s: the database file"
        case .scheduled: "u: waiting for a time"
        case .pending: "u: due, waiting for a notification server"
        case .timeZone: "s: the zone local times are computed in"
        case .nextFire: "s: ISO 8601 in that zone; absent when nothing is scheduled"
        case .nextFireTimestamp: "x: the same as Unix time"
        case .notificationServer: "s: unique name of the server chimed follows; absent when there is none"
        case .capabilities: "as: that server's, as chimed learned them"
        case .localSound: "b: chimed can play sounds through libcanberra for servers without \"sound\""
        case .lastLocalSound: "s: how the last sound chimed played itself went: \"played\", or libcanberra's error; absent "
            + "before the first"
        case .backup: "s: ISO 8601 time of the store's last backup; absent when there is none"
        case .backupTimestamp: "x: the same as Unix time"
        case .recovery: "s: what was recovered when the store was found damaged, and where the damaged file is kept; present "
            + "while that file is"
        case .locationSource: "s: GeoClue for region triggers: unused (none scheduled), unavailable (not on the system bus), "
            + "starting, granted, or denied (its agent or configuration refused Chime)"
        case .networkSource: "s: NetworkManager for network places: unused (none scheduled), unavailable (not on the system "
            + "bus), or following"
        case .config: "s: the config file chimed reads (at start and on SIGHUP)"
        case .categories: "as: the categories in force, built in and from the config, by name"
        case .appSettings: "u: how many apps the config has settings for"
        case .configErrors: "as: the config's errors, one sentence each naming file and line (empty when there is none): "
            + "each cost what it names (a button, a category, an app's settings); a file that cannot be read at all leaves "
            + "the last good config in force"
        case .calendars: "u: calendars followed (Calendars describes each)"
        case .calendarProblems: "u: their files or items not read or read in part, their folders that are gone, and their "
            + "CalDAV calendars that could not sync"
        }
    }
}

/// The keys of one event of `History` and `HistoryOf`.
public enum HistoryKey: String, CaseIterable, Sendable {
    case time, timestamp, id, event, title, detail, action, copy

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .time: "s: ISO 8601 with the system zone's offset"
        case .timestamp: "x: Unix seconds"
        case .id: "s; empty on the one event that sums up a bulk cancel of more than 100"
        case .event: "s: fired, late (shown after a missed time), dropped (missed past its lateLimit), pressed, completed, "
            + "snoozed, cancelled, expired, closed, handled (the app in front took it: not shown), withheld (its app's "
            + "alerts are off in the config: not shown), edited (changed by Update; detail names the keys)"
        case .title: "s: as it was then"
        case .detail: "s: a sentence, possibly empty"
        case .action: "s: the pressed key"
        case .copy: "s: the id of the snoozed copy"
        }
    }
}

/// The keys of the `a{sv}` `GetAppSettings` answers with: the user's `[App DESKTOP-ID]`
/// switches, each true unless the config turns it off.
public enum AppSettingsKey: String, CaseIterable, Sendable {
    case alerts, sounds, badges

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .alerts: "b: its notifications show (Alerts=)"
        case .sounds: "b: they play a sound (Sounds=)"
        case .badges: "b: they set its icon badge (Badges=)"
        }
    }
}

/// The keys of one calendar of `Calendars`, `AddCalendar` and `chime calendar list --json`.
public enum CalendarKey: String, CaseIterable, Sendable {
    case name, kind, location, state, reminders, problems, lastRead, lastReadTimestamp
    case user, shareDismissals, interval, lastSync, lastSyncTimestamp, error, queued, writable

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .name: "s: the name it is known by"
        case .kind: "s: vdir (a folder of .ics files, one per item, as vdirsyncer, khal and todoman keep them) or caldav (a "
            + "CalDAV collection, synced)"
        case .location: "s: the folder, absolute, links resolved; a CalDAV collection's URL"
        case .state: "s: for a folder reading, watching (read, and changes are read as they happen), missing (the folder is "
            + "gone; its reminders are kept until it is back or the calendar is removed); for a CalDAV calendar syncing (its "
            + "first sync is under way), synced, offline (the server cannot be reached now; error says why, and it is asked "
            + "again soon); or a sentence saying why it cannot be read (the password refused, the calendar gone), which "
            + "waits for the user"
        case .reminders: "u: notifications its items made that are still to fire"
        case .problems: "as: one sentence per file or item not read or read in part, naming it (larger than "
            + "\(Limits.calendarFileBytes >> 20) MiB, not regular, links out of the folder, not iCalendar, items refused, "
            + "a press the server would not take)"
        case .lastRead: "s: ISO 8601 time a folder was last read whole; absent before"
        case .lastReadTimestamp: "x: the same as Unix time"
        case .user: "s: CalDAV: the user it is read as"
        case .shareDismissals: "b: CalDAV: whether a dismissal is written to the server for every device"
        case .interval: "u: CalDAV: seconds between syncs"
        case .lastSync: "s: CalDAV: ISO 8601 time of the last sync that ended well; absent before"
        case .lastSyncTimestamp: "x: the same as Unix time"
        case .error: "s: CalDAV: why the last sync did not end well, one sentence; absent when it did"
        case .queued: "u: CalDAV: presses still to be written to the server (sent at the next sync it answers)"
        case .writable: "b: CalDAV: whether the server lets the user change its items (current-user-privilege-set, or a "
            + "refused write); absent until the server has said"
        }
    }
}

/// The keys of a calendar DiscoverCalendars found.
public enum DiscoveredKey: String, CaseIterable, Sendable {
    case location, name, components, writable, color

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .location: "s: its URL, as AddCalendar takes it"
        case .name: "s: its display name"
        case .components: "as: what it holds (VEVENT, VTODO); empty when the server does not say"
        case .writable: "b: whether the user may change its items (what is pressed is written back)"
        case .color: "s: its colour as the server gives it (#RRGGBB); absent when none"
        }
    }
}

/// The keys of a CalDAV calendar's sync report (SyncCalendar).
public enum SyncReportKey: String, CaseIterable, Sendable {
    case name, new, updated, removed, sent, error

    /// The key's type and meaning, as the contract file says them.
    public var summary: String {
        switch self {
        case .name: "s: the calendar"
        case .new: "u: reminders new from the server"
        case .updated: "u: reminders changed by it"
        case .removed: "u: reminders gone with their items"
        case .sent: "u: presses written into their items"
        case .error: "s: why the sync did not end well, one sentence; absent when it did"
        }
    }
}

/// CalDAV calendars' defaults, as the contract states them.
public enum CalDAVDefaults {
    /// Seconds between syncs: five minutes, as Thunderbird's default.
    public static let interval = 300
    /// The shortest interval a calendar may ask for.
    public static let shortestInterval = 5
}
