import DBus

/// The interface chimed serves, its API: every method and signal, in the order
/// the contract file lists them. A breaking change makes `io.github.chime.Scheduler2`;
/// additions (a method, a key) keep this name.
public enum Scheduler1 {
    public static let name = try! InterfaceName("io.github.chime.Scheduler1")

    // MARK: - Methods

    public static let presentNow = MethodDeclaration(
        "PresentNow", in: ["notification": "a{sv}"], out: ["id": "s"],
        "Shows a notification now; returns its Chime id. With replaces (a Chime id s, or a server id u or s) it takes the "
            + "place of that one on screen, as notify-send -r does, and keeps its Chime id; one no longer on screen is shown anew.")
    public static let presentNowSimple = MethodDeclaration(
        "PresentNowSimple", in: ["title": "s", "body": "s", "options": "a{ss}"], out: ["id": "s"],
        "PresentNow with basic types only, for dbus-send. options holds the string fields by name, plus action.KEY = label "
            + "(one per button, in order), hint.NAME = TYPE:VALUE (int, double, string, byte, boolean) and userInfo.KEY = value.")
    public static let schedule = MethodDeclaration(
        "Schedule", in: ["notification": "a{sv}"], out: ["id": "s"],
        "Schedules a notification; returns its id once it is stored. A repeat starts at its first occurrence from now; a "
            + "one-shot whose when is more than a minute in the past is InvalidArgs, unless late is true.")
    public static let scheduleSimple = MethodDeclaration(
        "ScheduleSimple", in: ["when": "s", "title": "s", "body": "s", "options": "a{ss}"], out: ["id": "s"],
        "Schedule with basic types only, for dbus-send; options as in PresentNowSimple plus the scheduling keys.")
    public static let cancel = MethodDeclaration(
        "Cancel", in: ["id": "s"],
        "Cancels one notification; NotFound when there is none with that id.")
    public static let cancelAll = MethodDeclaration(
        "CancelAll", out: ["count": "u"],
        "Cancels every scheduled notification; returns how many.")
    public static let cancelMatching = MethodDeclaration(
        "CancelMatching", in: ["key": "s", "value": "s"], out: ["count": "u"],
        "Cancels the scheduled notifications whose userInfo has key equal to value (compared as text).")
    public static let get = MethodDeclaration(
        "Get", in: ["id": "s"], out: ["notification": "a{sv}"],
        "One notification, scheduled or done.")
    public static let getJSON = MethodDeclaration(
        "GetJSON", in: ["id": "s"], out: ["json": "s"],
        "Get as a JSON object, for scripts: the same object as an element of ListJSON.")
    public static let list = MethodDeclaration(
        "List", out: ["notifications": "aa{sv}"],
        "Every scheduled notification and every one due and waiting for a notification server (state pending), by time: "
            + "soonest first (a pending one by when it came due), places last.")
    public static let listJSON = MethodDeclaration(
        "ListJSON", out: ["json": "s"],
        "List as a JSON array, for scripts.")
    public static let history = MethodDeclaration(
        "History", in: ["limit": "u"], out: ["events": "aa{sv}"],
        "What happened to notifications, newest first: the newest limit events (0 means \(Limits.historyDefault); chimed "
            + "keeps the newest \(Limits.historyKept), and a larger limit is InvalidArgs). Each event has "
            + describe(HistoryKey.allCases.map { ($0.rawValue, $0.summary) })
            + "; action and copy only where they apply. Scheduling is not an event.")
    public static let historyJSON = MethodDeclaration(
        "HistoryJSON", in: ["limit": "u"], out: ["json": "s"],
        "History as a JSON array, for scripts.")
    public static let historyOf = MethodDeclaration(
        "HistoryOf", in: ["id": "s", "limit": "u"], out: ["events": "aa{sv}"],
        "History of one notification and its lineage (the notification it was snoozed from and every snoozed copy); "
            + "NotFound when chimed has neither it nor any event of it.")
    public static let nextFireTimes = MethodDeclaration(
        "NextFireTimes", in: ["when": "s", "options": "a{ss}", "count": "u"], out: ["times": "as"],
        "The next count (\(Limits.nextFireCount.lowerBound)-\(Limits.nextFireCount.upperBound)) fire times of a rule, "
            + "without scheduling it, as ISO 8601 in the system zone. options: "
            + NotificationKey.keys(of: .schedule).filter { ![.when, .lateLimit, .late].contains($0) }.map(\.rawValue)
                .joined(separator: ", ")
            + ".")
    public static let nextFireTimestamps = MethodDeclaration(
        "NextFireTimestamps", in: ["when": "s", "options": "a{ss}", "count": "u"], out: ["times": "ax"],
        "NextFireTimes as Unix seconds, for programs that write times in their own way.")
    public static let occurrences = MethodDeclaration(
        "Occurrences", in: ["id": "s", "count": "u"], out: ["times": "ax"],
        "The next count (1 to 1000) fire times of a scheduled notification as Unix seconds, skipped ones left out; "
            + "empty once nothing is to come; NotFound when there is none with that id.")
    public static let skip = MethodDeclaration(
        "Skip", in: ["id": "s", "occurrence": "s"], out: ["time": "x"],
        "Skips one occurrence of a repeat without ending it (RFC 5545 EXDATE): occurrence is \"\" for the next one, N for "
            + "the N-th of Occurrences, a date (2026-12-24) for the first on that day, or a time as when takes it; returns "
            + "the time skipped. Skipped ones still count towards count.")
    public static let status = MethodDeclaration(
        "Status", out: ["status": "a{sv}"],
        "The daemon's state, for chime doctor: " + describe(StatusKey.allCases.map { ($0.rawValue, $0.summary) }) + ".")
    public static let setBadge = MethodDeclaration(
        "SetBadge", in: ["desktopEntry": "s", "count": "u"],
        "Sets an app's icon badge (0 hides it), announced to docks with com.canonical.Unity.LauncherEntry.Update for "
            + "application://DESKTOPENTRY.desktop. A notification with badge and desktopEntry sets it when it fires, unless its "
            + "app's settings (Badges=false) or the app in front (WillPresent) say otherwise; "
            + "Complete lowers it by one.")
    public static let getBadge = MethodDeclaration(
        "GetBadge", in: ["desktopEntry": "s"], out: ["count": "u"],
        "An app's icon badge as Chime last set it.")
    public static let invokeAction = MethodDeclaration(
        "InvokeAction", in: ["id": "s", "action": "s"],
        "Runs an action as if its button had been pressed: for servers without buttons (no \"actions\" capability) and "
            + "for scripts. InvalidArgs names the keys it has; \(ChimeError.notShown) for a snooze button of one that has "
            + "not fired yet.")
    public static let getAppSettings = MethodDeclaration(
        "GetAppSettings", in: ["app": "s"], out: ["settings": "a{sv}"],
        "What the user's config allows the notifications of app (a desktop entry id) to do "
            + "(registerUserNotificationSettings): " + describe(AppSettingsKey.allCases.map { ($0.rawValue, $0.summary) })
            + ". Any id is answered, all true when the config has no [App] group for it; an empty one is InvalidArgs.")

    public static let update = MethodDeclaration(
        "Update", in: ["id": "s", "changes": "a{sv}"],
        "Changes a scheduled notification in place, keeping its id and history (an edited event): only the keys given "
            + "change, as Schedule reads them; actions and hints given replace the old ones, userInfo keys are added or "
            + "replaced, repeat \"never\" ends a repeat; a new when in the past is refused or skipped as Schedule's is. A bad "
            + "key changes nothing. NotFound for an unknown id, "
            + "\(ChimeError.notScheduled) for one that is done or cancelled.")
    public static let updateSimple = MethodDeclaration(
        "UpdateSimple", in: ["id": "s", "changes": "a{ss}"],
        "Update with basic types only, for dbus-send: changes as the options of ScheduleSimple, plus when, title and body.")
    public static let snooze = MethodDeclaration(
        "Snooze", in: ["id": "s", "when": "s"], out: ["copy": "s"],
        "Closes notification id, on screen or on its way there, and shows it again at when, as its snooze buttons do: a duration "
            + "(10m, 1h30m) or a time (18:00, tomorrow 9:00) read now; returns the id of the one-shot copy that will "
            + "fire, whose origin is id. NotFound for an unknown id, \(ChimeError.notShown) for one not on screen or already pressed or snoozed.")
    public static let importICalendar = MethodDeclaration(
        "ImportICalendar", in: ["text": "s"], out: ["ids": "as", "refusals": "as"],
        "Schedules the VEVENTs and VTODOs of an iCalendar (RFC 5545) text as chime import does: one notification per VALARM "
            + "(or at DTSTART or DUE), the ids in order. An item imported before (the same UID, RECURRENCE-ID and alarm, or "
            + "the UID ExportICalendar gave a notification) is updated in place and keeps its id; one completed since stays "
            + "completed (a sentence says so). Each component is imported whole or not at all; refusals has one "
            + "sentence per component not imported or skipped, naming its SUMMARY, UID and line. InvalidArgs when the text "
            + "is not iCalendar; a text is one string, so at most \(Limits.stringBytes) bytes.")
    public static let importICalendarPart = MethodDeclaration(
        "ImportICalendarPart", in: ["text": "s", "lines": "au"],
        out: ["ids": "as", "refused": "as", "skipped": "as", "updated": "as", "notifications": "aa{sv}"],
        "ImportICalendar for a client that cuts a larger file into texts of at most \(Limits.stringBytes) bytes at component "
            + "boundaries, as chime import does: lines gives the file's line of each VEVENT's and VTODO's BEGIN, in text's "
            + "order, for the sentences (empty: text's own lines; a count that is not the components' is InvalidArgs). "
            + "The sentences come apart: refused names each component not imported, skipped each one with nothing to remind "
            + "of (past, cancelled, completed); updated lists the ids among ids that were there before and were updated in place; notifications describes "
            + "each of ids, in order, as Get does.")
    public static let exportICalendar = MethodDeclaration(
        "ExportICalendar", in: ["ids": "as"], out: ["calendar": "s", "refusals": "as"],
        "The notifications ids (every scheduled one when ids is empty) as an iCalendar text, as chime export writes it; "
            + "refusals has one sentence per notification left out (one that fires at a place). NotFound for an unknown id.")

    public static let addCalendar = MethodDeclaration(
        "AddCalendar", in: ["location": "s", "options": "a{sv}"], out: ["calendar": "a{sv}"],
        "Follows a calendar. A vdir folder (location an absolute path) is read now and then whenever a file in it is written, "
            + "replaced or removed (inotify). A CalDAV collection (location an https:// URL, or http:// to this machine, as "
            + "DiscoverCalendars gives it) is synced now and then every interval, and what is pressed on its reminders is "
            + "written back into its items. Each VEVENT and VTODO is scheduled as ImportICalendar does, and an item removed "
            + "takes its reminders with it. options: name (s; default the folder's or collection's name); for CalDAV: user (s, "
            + "required), password (s; stored in the Secret Service, never in chimed's files) or passwordCommand (s; run with "
            + "/bin/sh -c at each sync that needs it, its first line the password), ca (s; a PEM file of the CAs trusted for "
            + "this server), shareDismissals (b; default true: a dismissal is written to the server, so every device stops "
            + "ringing that alarm; false keeps dismissals on this machine), interval (u; seconds between syncs, default "
            + "\(CalDAVDefaults.interval), at least \(CalDAVDefaults.shortestInterval)). Returns the calendar as Calendars "
            + "describes it, once read (a CalDAV calendar: once its first sync ended, well or not). InvalidArgs (location, name "
            + "or an option) for a path that is not a readable folder, a folder of calendar folders (the sentence names them), "
            + "plain http to another machine, or a name or location followed already; Failed when the keyring cannot store "
            + "the password.")
    public static let discoverCalendars = MethodDeclaration(
        "DiscoverCalendars", in: ["location": "s", "options": "a{sv}"], out: ["calendars": "aa{sv}"],
        "The calendars of a CalDAV account, found from its server's address (RFC 6764 /.well-known/caldav, "
            + "current-user-principal, calendar-home-set), or the one calendar location is: "
            + describe(DiscoveredKey.allCases.map { ($0.rawValue, $0.summary) }) + ". options: user (s, required), password "
            + "(s) or passwordCommand (s), ca (s), as AddCalendar takes them; nothing is stored. InvalidArgs for an address "
            + "that is not a CalDAV server (the sentence says what it answered); Failed when the password is refused.")
    public static let syncCalendar = MethodDeclaration(
        "SyncCalendar", in: ["name": "s"], out: ["reports": "aa{sv}"],
        "Syncs CalDAV calendar name now (every CalDAV calendar when name is empty) and answers once done, one report each: "
            + describe(SyncReportKey.allCases.map { ($0.rawValue, $0.summary) }) + ". NotFound when no CalDAV calendar has "
            + "that name; Failed for a folder, which is read as its files change.")
    public static let setCalendarPassword = MethodDeclaration(
        "SetCalendarPassword", in: ["name": "s", "password": "s"], out: ["report": "a{sv}"],
        "Stores a new password for the user of CalDAV calendar name in the Secret Service (for every calendar of that user "
            + "on that server) and syncs it; answers the sync's report as SyncCalendar does. NotFound when no CalDAV "
            + "calendar has that name; Failed for one whose password comes from its passwordCommand, or when the keyring "
            + "cannot store it.")
    public static let removeCalendar = MethodDeclaration(
        "RemoveCalendar", in: ["name": "s"], out: ["removed": "u"],
        "Stops following calendar name and cancels the reminders its items made; returns how many. The files, or the "
            + "items on the server, are left as they are; the password chimed stored for a CalDAV calendar goes from the "
            + "keyring once no other calendar of that user on that server needs it. NotFound when no calendar has that name.")
    public static let calendars = MethodDeclaration(
        "Calendars", out: ["calendars": "aa{sv}"],
        "The calendars followed, by name: " + describe(CalendarKey.allCases.map { ($0.rawValue, $0.summary) }) + ".")

    public static let methods = [
        presentNow, presentNowSimple, schedule, scheduleSimple, cancel, cancelAll, cancelMatching, get, getJSON, list,
        listJSON, history, historyJSON, historyOf, nextFireTimes, nextFireTimestamps, occurrences, skip, status, setBadge, getBadge,
        invokeAction, getAppSettings, update, updateSimple, snooze, importICalendar, importICalendarPart,
        exportICalendar, addCalendar, removeCalendar, calendars, discoverCalendars, syncCalendar, setCalendarPassword,
    ]

    /// The method called `name`, nil when there is none.
    public static func method(named name: String) -> MethodDeclaration? {
        methods.first { $0.name.rawValue == name }
    }

    // MARK: - Signals

    public static let fired = SignalDeclaration(
        "Fired", ["id": "s", "notification": "a{sv}"],
        "A scheduled notification fired (didReceiveLocalNotification): it is shown, unless the app in front took it "
            + "(io.github.chime.Presenter1.WillPresent) or its app's alerts are off; notification as Get describes it, plus lateBy "
            + "(\(NotificationKey.lateBy.summary)).")
    public static let completed = SignalDeclaration(
        "Completed", ["id": "s"],
        "Complete was pressed on id: it and its whole repeat series (and snoozed copies) are done.")
    public static let actionInvoked = SignalDeclaration(
        "ActionInvoked", ["id": "s", "action": "s", "userInfo": "a{sv}"],
        "A button (action key) was pressed on notification id; \"default\" is the body.")
    public static let closed = SignalDeclaration(
        "Closed", ["id": "s", "reason": "u"],
        "Notification id left the screen. reason as in the notification specification: 1 expired, 2 dismissed by the "
            + "user, 3 closed by a call, 4 undefined.")

    public static let signals = [fired, completed, actionInvoked, closed]

    // MARK: - Properties

    public static let version = PropertyDeclaration(name: "Version", value: .string(chimeVersion), summary: "The daemon's version.")

    /// "a (x), b (y) and c (z)".
    static func describe(_ keys: [(String, String)]) -> String {
        let items = keys.map { "\($0.0) (\($0.1))" }
        return items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }
}
