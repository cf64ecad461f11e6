import FoundationEssentials
import Localization


/// What was found and done when the store was damaged, for the log, `chime doctor` and
/// the one notification that tells the user.
public struct StoreRecovery: Equatable, Codable, Sendable {
    /// When the damage was found.
    public var date: Date
    /// What SQLite said was wrong.
    public var damage: String
    /// Where the damaged file (and its -wal and -shm, when there were) is kept.
    public var keptAs: String
    /// The reminders (scheduled notifications) the store holds now.
    public var recovered: Int
    /// How many the damaged file seemed to hold; nil when that cannot be known.
    public var expected: Int?
    /// When the backup the store was restored from was made, when nothing could be read.
    public var backup: Date?
    /// How many lost rows the backup gave back (rows the damaged file still listed in its
    /// indexes but could not read).
    public var fromBackup: Int

    /// "Chime recovered 255 of 300 reminders": the notification's title, in the session's language.
    public var title: String {
        if recovered == 0, expected == nil, backup == nil { return localized("Chime could not recover its reminders") }
        if let expected, recovered >= expected, backup == nil { return localized("Chime repaired its store; no reminder was lost") }
        switch (expected, backup) {
        case (let expected?, nil):
            return pluralized("Chime recovered %1$d of %2$d reminder", "Chime recovered %1$d of %2$d reminders", count: expected,
                              recovered, expected)
        case (let expected?, _?):
            return pluralized("Chime recovered %1$d of %2$d reminder from its backup",
                              "Chime recovered %1$d of %2$d reminders from its backup", count: expected, recovered, expected)
        case (nil, nil):
            return pluralized("Chime recovered %1$d reminder", "Chime recovered %1$d reminders", count: recovered, recovered)
        case (nil, _?):
            return pluralized("Chime recovered %1$d reminder from its backup", "Chime recovered %1$d reminders from its backup",
                              count: recovered, recovered)
        }
    }

    /// What happened and where the damaged file is, in two or three sentences.
    public var body: String {
        var sentences: [String]
        if let backup {
            sentences = [localized("Its store was damaged beyond reading, so it was recovered from the backup of %1$s; changes made since then are lost.",
                                   Self.dayText(backup))]
        } else if let expected, recovered >= expected {
            sentences = [localized("Its store was damaged; every reminder was read back.")]
        } else if recovered == 0, expected == nil {
            sentences = [localized("Its store was damaged beyond reading and there was no backup to fall back on; it starts anew.")]
        } else {
            sentences = [localized("Its store was damaged; what could be read was kept.")]
        }
        if fromBackup > 0 { sentences.append(pluralized("%1$d of them came from the backup.", "%1$d of them came from the backup.",
                                                        count: fromBackup, fromBackup)) }
        sentences.append(localized("The damaged file is kept as %1$s.", keptAs))
        return sentences.joined(separator: " ")
    }

    /// One line for the log and for `chime doctor`.
    public var sentence: String {
        let count = expected.map { "\(recovered) of \($0)" } ?? "\(recovered)"
        var text = "The store was found damaged on \(Self.dayText(date)) (\(damage)); \(count) reminders were recovered"
        if let backup { text += " from the backup of \(Self.dayText(backup))" }
        if fromBackup > 0 { text += ", \(fromBackup) of them from the backup" }
        return text + "; the damaged file is kept as \(keptAs)."
    }

    /// "2026-11-22 10:15": local time, as people read it.
    static func dayText(_ date: Date) -> String {
        String(LocalDateTime(date, in: .current).description.prefix(16).map { $0 == "T" ? " " : $0 })
    }

    /// "20261122-101500": local time, for a file name.
    static func compactStamp(_ date: Date) -> String {
        String(LocalDateTime(date, in: .current).description.compactMap { $0 == "T" ? "-" : ($0 == "-" || $0 == ":") ? nil : $0 })
    }
}
