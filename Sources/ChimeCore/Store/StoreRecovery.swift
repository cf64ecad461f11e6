import Foundation


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

    /// "Chime recovered 255 of 300 reminders": the notification's title.
    public var title: String {
        if recovered == 0, expected == nil, backup == nil { return "Chime could not recover its reminders" }
        if let expected, recovered >= expected, backup == nil { return "Chime repaired its store; no reminder was lost" }
        let count = expected.map { "\(recovered) of \($0)" } ?? "\(recovered)"
        let noun = (expected ?? recovered) == 1 ? "reminder" : "reminders"
        return backup == nil ? "Chime recovered \(count) \(noun)" : "Chime recovered \(count) \(noun) from its backup"
    }

    /// What happened and where the damaged file is, in two or three sentences.
    public var body: String {
        var sentences: [String]
        if let backup {
            sentences = ["Its store was damaged beyond reading, so it was recovered from the backup of \(Self.dayText(backup)); "
                + "changes made since then are lost."]
        } else if let expected, recovered >= expected {
            sentences = ["Its store was damaged; every reminder was read back."]
        } else if recovered == 0, expected == nil {
            sentences = ["Its store was damaged beyond reading and there was no backup to fall back on; it starts anew."]
        } else {
            sentences = ["Its store was damaged; what could be read was kept."]
        }
        if fromBackup > 0 { sentences.append("\(fromBackup) of them came from the backup.") }
        sentences.append("The damaged file is kept as \(keptAs).")
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
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd HH:mm"
        return format.string(from: date)
    }
}
