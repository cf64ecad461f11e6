import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// After a damaged store was replaced: making the new one whole, and telling the user once.
extension Store {
    /// The meta keys of the last recovery and of whether the user was told of it.
    static let recoveryKey = "recovery"
    static let recoveryToldKey = "recoveryTold"

    /// Makes the recovered store whole: drops rows that do not decode (a damaged page can
    /// read as garbage), rebuilds userInfo from the alerts, gives back from the backup the
    /// reminders the damaged file still listed as scheduled but could not read, and
    /// records what happened so the user is told once.
    func finishRecovery(_ salvage: Salvage) {
        var fromBackup = 0
        do {
            try database.inTransaction {
                let db = database
                var undecodable: [String] = []
                var userInfo: [(String, String, String)] = []
                let rows = try Row.fetchCursor(db, sql: "SELECT * FROM notification")
                while let row = try rows.next() {
                    do {
                        let notification = try decode(row)
                        for (key, value) in notification.alert.userInfo { userInfo.append((notification.id, key, value.text)) }
                    } catch {
                        if let id = try? row["id"] as String { undecodable.append(id) }
                    }
                }
                for id in undecodable { try db.execute(sql: "DELETE FROM notification WHERE id = ?", arguments: [id]) }
                try db.execute(sql: "DELETE FROM userInfo")
                let insert = try db.makeStatement(sql: "INSERT OR IGNORE INTO userInfo (notificationId, key, value) VALUES (?, ?, ?)")
                for (id, key, value) in userInfo { try insert.execute(arguments: [id, key, value]) }
            }
            if salvage.backup == nil, !salvage.lost.isEmpty { fromBackup = try restoreLost(salvage.lost) }
        } catch {
            notices.append("The recovered store could not be checked in full: \(error)")
        }
        let recovered = ((try? Int.fetchOne(database, sql: "SELECT count(*) FROM notification WHERE state = 'scheduled'")) ?? nil) ?? 0
        let report = StoreRecovery(date: salvage.date, damage: salvage.damage, keptAs: salvage.keptAs, recovered: recovered,
                                   expected: salvage.expected.map { max($0, recovered) }, backup: salvage.backup,
                                   fromBackup: fromBackup)
        recovery = report
        recoveryTold = false
        do {
            let text = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
            try write { transaction in
                try setMeta(Self.recoveryKey, text, in: transaction)
                try transaction.db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [Self.recoveryToldKey])
            }
        } catch {
            notices.append("The recovery could not be recorded, so it may be reported again: \(error)")
        }
    }

    /// Takes from the backup the reminders the damaged file still listed as scheduled
    /// (alive: a cancel removes a row and its index entries in one transaction, so a
    /// cancelled one is never listed) but could not read. A backup row that is behind
    /// (it fired since) is moved to the due time the damaged file's index gives.
    private func restoreLost(_ lost: [(id: String, nextFire: Double)]) throws -> Int {
        guard access(backupURL.path, R_OK) == 0 else { return 0 }
        let backup = try Database(path: backupURL.path, readOnly: true)
        defer { backup.close() }
        let zone = Zone.current
        var found: [ScheduledNotification] = []
        for (id, due) in lost {
            guard let row = try? Row.fetchOne(backup, sql: "SELECT * FROM notification WHERE id = ?", arguments: [id]),
                  var notification = try? decode(row) else { continue }
            let nextFire = Date(timeIntervalSince1970: due)
            if notification.nextFire != nextFire,
               let occurrence = notification.rule.firstOccurrence(onOrAfter: nextFire, systemZone: zone),
               abs(occurrence.date.timeIntervalSince(nextFire)) < 0.001 {
                notification.nextIndex = occurrence.index
            }
            notification.nextFire = nextFire
            notification.state = .scheduled
            found.append(notification)
        }
        return try write { transaction in try found.filter { try insert($0, in: transaction) }.count }
    }

    /// Reads the last recovery and whether the user was told of it.
    func loadRecovery() {
        guard let text = try? meta(Self.recoveryKey),
              let report = try? JSONDecoder().decode(StoreRecovery.self, from: Data(text.utf8)) else { return }
        recovery = report
        recoveryTold = ((try? meta(Self.recoveryToldKey)) ?? nil) != nil
    }

    /// Records that the user was told of ``recovery``, so no later start tells them again.
    public func markRecoveryTold(in transaction: Transaction) throws {
        try setMeta(Self.recoveryToldKey, "yes", in: transaction)
        recoveryTold = true
    }
}
