import ChimeAPI
import DBus

/// The methods the commands call, typed. Each ends the command with a message and the
/// documented exit status when chimed refuses or cannot be reached.
extension ChimedClient {
    /// Schedules a notification given in the string form; its id.
    func scheduleSimple(when: String, title: String, body: String, options: [(String, String)]) throws -> String {
        try callOrFail(Scheduler1.scheduleSimple, [.string(when), .string(title), .string(body), .stringDictionary(options)])
            .first?.stringValue ?? ""
    }

    /// Changes scheduled notification `id` as `changes` (the string form) say.
    func updateSimple(_ id: String, changes: [(String, String)]) throws {
        _ = try callOrFail(Scheduler1.updateSimple, [.string(id), .stringDictionary(changes)], about: id)
    }

    /// Snoozes notification `id`, on screen, until `when`; the id of the copy that will fire.
    func snooze(_ id: String, until when: String) throws -> String {
        try callOrFail(Scheduler1.snooze, [.string(id), .string(when)], about: id).first?.stringValue ?? ""
    }

    func cancel(_ id: String) throws {
        _ = try callOrFail(Scheduler1.cancel, [.string(id)], about: id)
    }

    /// Cancels everything scheduled; how many.
    func cancelAll() throws -> Int64 {
        try callOrFail(Scheduler1.cancelAll, []).first?.integerValue ?? 0
    }

    /// Cancels those whose userInfo has `key` equal to `value`; how many.
    func cancelMatching(key: String, value: String) throws -> Int64 {
        try callOrFail(Scheduler1.cancelMatching, [.string(key), .string(value)]).first?.integerValue ?? 0
    }

    /// One notification's description, in chimed's order.
    func get(_ id: String) throws -> [(key: String, value: Value)] {
        try callOrFail(Scheduler1.get, [.string(id)], about: id).first?.stringKeyedEntries ?? []
    }

    /// What chimed describes of `id` now, for a line confirming a change; nil when it
    /// cannot say (the id is gone, chimed stopped): the confirmation then says less, and
    /// the change, already made, is not reported as failed.
    func described(_ id: String) -> [(key: String, value: Value)]? {
        (try? call(Scheduler1.get, [.string(id)]).first?.stringKeyedEntries) ?? nil
    }

    func getJSON(_ id: String) throws -> String {
        try callOrFail(Scheduler1.getJSON, [.string(id)], about: id).first?.stringValue ?? "{}"
    }

    /// What is scheduled, soonest first, then what waits for a notification server.
    func list() throws -> [[(key: String, value: Value)]] {
        (try callOrFail(Scheduler1.list, []).first?.arrayElements ?? []).compactMap(\.stringKeyedEntries)
    }

    func listJSON() throws -> String {
        try callOrFail(Scheduler1.listJSON, []).first?.stringValue ?? "[]"
    }

    /// The newest `limit` events (0: chimed's default), of notification `id` and its
    /// lineage when given, newest first.
    func history(limit: UInt32, of id: String?) throws -> [HistoryEvent] {
        let reply = try id.map { try callOrFail(Scheduler1.historyOf, [.string($0), .uint32(limit)], about: $0) }
            ?? callOrFail(Scheduler1.history, [.uint32(limit)])
        return (reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(HistoryEvent.init)
    }

    /// The next `count` fire times of a rule, as Unix seconds.
    func nextFireTimestamps(when: String, options: [(String, String)], count: UInt32) throws -> [Int64] {
        let reply = try callOrFail(Scheduler1.nextFireTimestamps, [.string(when), .stringDictionary(options), .uint32(count)])
        return (reply.first?.arrayElements ?? []).compactMap(\.integerValue)
    }

    func setBadge(_ desktopEntry: String, _ count: UInt32) throws {
        _ = try callOrFail(Scheduler1.setBadge, [.string(desktopEntry), .uint32(count)])
    }

    /// The app's badge as chimed last set it.
    func badge(of desktopEntry: String) throws -> Int64 {
        try callOrFail(Scheduler1.getBadge, [.string(desktopEntry)]).first?.integerValue ?? 0
    }

    /// The calendars chimed follows, by name.
    func calendars() throws -> [CalendarText] {
        (try callOrFail(Scheduler1.calendars, []).first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).map(CalendarText.init)
    }
}
