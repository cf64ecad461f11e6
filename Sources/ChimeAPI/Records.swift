import DBus

/// chimed's state as `Status` tells it (for `chime doctor`). Every field may be absent:
/// an older chimed may not have it, and optional ones are left out rather than empty.
public struct DaemonStatus: Sendable, Equatable {
    public var version: String?
    public var interface: String?
    public var pid: UInt32?
    public var store: String?
    public var scheduled: UInt32?
    public var pending: UInt32?
    public var timeZone: String?
    /// Unix seconds of the next fire time; nil when nothing is scheduled.
    public var nextFire: Int64?
    public var notificationServer: String?
    /// Nil while the server has not said what it can do.
    public var capabilities: [String]?
    public var localSound: Bool?
    /// "played", or libcanberra's error for the last sound chimed played itself.
    public var lastLocalSound: String?
    /// Unix seconds of the store's last backup.
    public var backup: Int64?
    public var recovery: String?
    /// GeoClue for region triggers: unused, unavailable, starting, granted or denied.
    public var locationSource: String?
    /// NetworkManager for network places: unused, unavailable or following.
    public var networkSource: String?
    /// The config file chimed reads.
    public var config: String?
    /// The categories in force, by name.
    public var categories: [String]?
    /// How many apps the config has settings for.
    public var appSettings: UInt32?
    /// The config's errors, a sentence each naming file and line; empty when there is none.
    public var configErrors: [String]?
    /// How many calendars chimed follows.
    public var calendars: UInt32?
    /// How many of their files it cannot read, and folders that are gone.
    public var calendarProblems: UInt32?

    public init() {}

    /// Reads what `Status` answered; keys of other types count as absent.
    public init(_ entries: [(key: String, value: Value)]) {
        var fields: [StatusKey: Value] = [:]
        for (key, value) in entries { if let key = StatusKey(rawValue: key), fields[key] == nil { fields[key] = value.unwrapped } }
        version = fields[.version]?.stringValue
        interface = fields[.interface]?.stringValue
        pid = fields[.pid]?.integerValue.flatMap(UInt32.init(exactly:))
        store = fields[.store]?.stringValue
        scheduled = fields[.scheduled]?.integerValue.flatMap(UInt32.init(exactly:))
        pending = fields[.pending]?.integerValue.flatMap(UInt32.init(exactly:))
        timeZone = fields[.timeZone]?.stringValue
        nextFire = fields[.nextFireTimestamp]?.integerValue
        notificationServer = fields[.notificationServer]?.stringValue
        capabilities = fields[.capabilities]?.arrayElements?.compactMap(\.stringValue)
        localSound = fields[.localSound]?.boolValue
        lastLocalSound = fields[.lastLocalSound]?.stringValue
        backup = fields[.backupTimestamp]?.integerValue
        recovery = fields[.recovery]?.stringValue
        locationSource = fields[.locationSource]?.stringValue
        networkSource = fields[.networkSource]?.stringValue
        config = fields[.config]?.stringValue
        categories = fields[.categories]?.arrayElements?.compactMap(\.stringValue)
        appSettings = fields[.appSettings]?.integerValue.flatMap(UInt32.init(exactly:))
        configErrors = fields[.configErrors]?.arrayElements?.compactMap(\.stringValue)
        calendars = fields[.calendars]?.integerValue.flatMap(UInt32.init(exactly:))
        calendarProblems = fields[.calendarProblems]?.integerValue.flatMap(UInt32.init(exactly:))
    }

    /// The `a{sv}` of `Status`: each instant as Unix seconds, and as text (`isoText`)
    /// under the key that carried it before the seconds did.
    public func entries(isoText: (Int64) -> String) -> [(String, Value)] {
        let entries: [(StatusKey, Value?)] = [
            (.version, version.map(Value.string)),
            (.interface, interface.map(Value.string)),
            (.pid, pid.map(Value.uint32)),
            (.store, store.map(Value.string)),
            (.scheduled, scheduled.map(Value.uint32)),
            (.pending, pending.map(Value.uint32)),
            (.timeZone, timeZone.map(Value.string)),
            (.nextFire, nextFire.map { .string(isoText($0)) }),
            (.nextFireTimestamp, nextFire.map(Value.int64)),
            (.notificationServer, notificationServer.map(Value.string)),
            (.capabilities, capabilities.map(Value.stringArray)),
            (.localSound, localSound.map(Value.bool)),
            (.lastLocalSound, lastLocalSound.map(Value.string)),
            (.backup, backup.map { .string(isoText($0)) }),
            (.backupTimestamp, backup.map(Value.int64)),
            (.recovery, recovery.map(Value.string)),
            (.locationSource, locationSource.map(Value.string)),
            (.networkSource, networkSource.map(Value.string)),
            (.config, config.map(Value.string)),
            (.categories, categories.map(Value.stringArray)),
            (.appSettings, appSettings.map(Value.uint32)),
            (.configErrors, configErrors.map(Value.stringArray)),
            (.calendars, calendars.map(Value.uint32)),
            (.calendarProblems, calendarProblems.map(Value.uint32)),
        ]
        return entries.compactMap { key, value in value.map { (key.rawValue, $0) } }
    }
}

/// One event of `History` and `HistoryOf`.
public struct HistoryEvent: Sendable, Equatable {
    /// Unix seconds; nil only when a peer left it out.
    public var timestamp: Int64?
    /// Empty on the one event that sums up a bulk cancel.
    public var id: String
    public var event: String
    public var title: String
    public var detail: String
    /// The pressed key, on `pressed` events.
    public var action: String?
    /// The snoozed copy's id, on `snoozed` events.
    public var copy: String?

    public init(timestamp: Int64?, id: String, event: String, title: String, detail: String, action: String? = nil,
                copy: String? = nil) {
        (self.timestamp, self.id, self.event, self.title, self.detail, self.action, self.copy) =
            (timestamp, id, event, title, detail, action, copy)
    }

    /// Reads one event; missing strings are empty.
    public init(_ entries: [(key: String, value: Value)]) {
        var fields: [HistoryKey: Value] = [:]
        for (key, value) in entries { if let key = HistoryKey(rawValue: key), fields[key] == nil { fields[key] = value.unwrapped } }
        let text = { (key: HistoryKey) in fields[key]?.stringValue ?? "" }
        self.init(timestamp: fields[.timestamp]?.integerValue, id: text(.id), event: text(.event), title: text(.title),
                  detail: text(.detail), action: fields[.action]?.stringValue, copy: fields[.copy]?.stringValue)
    }

    /// The event's `a{sv}`, its time also as text (`isoText`).
    public func entries(isoText: (Int64) -> String) -> [(String, Value)] {
        var entries: [(HistoryKey, Value)] = []
        if let timestamp { entries += [(.time, .string(isoText(timestamp))), (.timestamp, .int64(timestamp))] }
        entries += [(.id, .string(id)), (.event, .string(event)), (.title, .string(title)), (.detail, .string(detail))]
        if let action { entries.append((.action, .string(action))) }
        if let copy { entries.append((.copy, .string(copy))) }
        return entries.map { ($0.0.rawValue, $0.1) }
    }
}
