import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials
import ICS

/// The items a calendar read (a folder's files, a collection's items), merged into the
/// schedule as one change: what a folder and a CalDAV collection share.
enum CalendarReading {
    /// What a reading changed: notifications new, updated and removed.
    struct Changes {
        var new = 0, updated = 0, removed = 0
        var updatedIDs: [String] = []
        var removedIDs: [String] = []
    }

    /// Why a reading changed nothing: the merge could not start (the calendar cannot be read
    /// now), or what was read could not be stored.
    enum Failure: Error {
        case unreadable(String)
        case notStored(StoreError)
    }

    /// One item's text as read: its components, or the sentence saying why it is not iCalendar.
    enum Item {
        case components([ImportComponent])
        case notCalendar(String)
    }

    /// Reads item `name`, whose text is `text`.
    static func read(_ name: String, _ text: String, allDay: (hour: Int, minute: Int)) -> Item {
        let cut = CalendarParts(text, limit: .max)
        guard cut.isCalendar, !cut.isCutShort, let components = CalendarText.components(of: text, allDay: allDay) else {
            return .notCalendar("\(name) is not iCalendar: " + CalendarText.whyNotCalendar(text))
        }
        return .components(components)
    }

    /// Merges `texts` (each item's name in the calendar and its text) and the items `gone`
    /// into the schedule, with `also` in the same transaction; `done` hears what changed once
    /// stored, and the sentences of the items not read (or read in part), by name. An item
    /// not read keeps what it made before.
    static func merge(_ texts: [(name: String, text: String)], gone: Set<String>, of calendar: CalendarSource, parts: Calendars.Context,
                      also: ((Store.Transaction) throws -> Void)? = nil,
                      done: @escaping (Result<Changes, Failure>, _ problems: [String: [String]]) -> Void) {
        if let failure = CalendarText.loadFailure() { return done(.failure(.unreadable(failure)), [:]) }
        let allDay = parts.settings.config.allDayTime
        var problems: [String: [String]] = [:]
        var read: [(name: String, components: [ImportComponent])] = []
        for (name, text) in texts {
            switch Self.read(name, text, allDay: (allDay.hour, allDay.minute)) {
            case .components(let components): read.append((name, components))
            case .notCalendar(let sentence): problems[name] = [sentence]
            }
        }
        merge(read: read, problems: problems, gone: gone, of: calendar, parts: parts, also: also, done: done)
    }

    /// Merges items already read (``read(_:_:allDay:)``) as ``merge(_:gone:of:parts:also:done:)``
    /// does; `problems` are those of the reading, passed on to `done`.
    static func merge(read: [(name: String, components: [ImportComponent])], problems: [String: [String]], gone: Set<String>,
                      of calendar: CalendarSource, parts: Calendars.Context, also: ((Store.Transaction) throws -> Void)? = nil,
                      done: @escaping (Result<Changes, Failure>, _ problems: [String: [String]]) -> Void) {
        var problems = problems
        let sources = Set(read.map { calendar.source(ofFile: $0.name) }).union(gone.map(calendar.source(ofFile:)))
        guard !sources.isEmpty || also != nil else { return done(.success(Changes()), problems) }
        var merge: CalendarMerge
        do {
            merge = try CalendarMerge(store: parts.store, commits: parts.commits, components: read.flatMap(\.components),
                                      sources: sources, now: parts.now(), zone: .current)
        } catch {
            return done(.failure(.unreadable(error.message)), problems)
        }
        for (name, components) in read {
            let refused = merge.read(components, source: calendar.source(ofFile: name))
            if !refused.isEmpty { problems[name] = refused.map { "\(name): \($0)" } }
        }
        merge.removeUnread(from: sources)
        merge.commit(to: parts.schedule, also: also) { [problems] result in
            switch result {
            case .success(let outcome):
                done(.success(Changes(new: outcome.ids.count - outcome.updated.count, updated: outcome.updated.count,
                                      removed: outcome.removed.count, updatedIDs: outcome.updated, removedIDs: outcome.removed)), problems)
            case .failure(let error):
                done(.failure(.notStored(error)), problems)
            }
        }
    }
}
