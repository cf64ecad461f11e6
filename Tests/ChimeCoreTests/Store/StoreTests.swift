@testable import ChimeCore
import Foundation
import Testing

/// The store's history: written with the changes it belongs to, bounded, migrated into
/// stores made by earlier versions.
struct StoreTests {
    /// A fresh data directory, removed when the test ends.
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chime-store-\(UUID().uuidString)")
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    func notification(_ id: String, title: String, origin: String? = nil) throws -> ScheduledNotification {
        let due = Self.start.addingTimeInterval(3600)
        var notification = ScheduledNotification(id: id, alert: Alert(title: title), rule: try FireRule(trigger: .absolute(due)),
                                                 lateLimit: nil, created: Self.start, nextIndex: 0, nextFire: due)
        notification.origin = origin
        return notification
    }

    func fired(_ id: String, _ second: Int, title: String = "T") -> HistoryEntry {
        HistoryEntry(time: Self.start.addingTimeInterval(Double(second)), id: id, event: .fired, title: title)
    }

    @Test func missingFoldersAreMadePrivateAndAFileInTheWayIsRefused() throws {
        let directory = Directory()
        let nested = directory.url.appendingPathComponent("a/b/chime")
        _ = try Store(directory: nested)
        for path in [directory.url.appendingPathComponent("a").path, nested.path] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path)")
        }
        let file = directory.url.appendingPathComponent("file")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        #expect {
            try Store(directory: file.appendingPathComponent("chime"))
        } throws: { error in
            "\(error)".contains("Cannot create the data directory") && "\(error)".contains("Not a directory")
        }
    }

    @Test func oneStorePerDirectoryUntilItIsClosed() throws {
        let directory = Directory()
        let first = try Store(directory: directory.url)
        #expect {
            try Store(directory: directory.url)
        } throws: { error in
            "\(error)".contains("Another chimed is already using")
        }
        // What a chimed does on its way out, before it leaves the bus.
        first.close()
        let second = try Store(directory: directory.url)
        #expect(try second.scheduled().isEmpty)
    }

    @Test func historyKeepsTheNewestRowsAndPrunesRarely() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url, historyLimit: 100)
            for second in 0..<250 {
                try store.write { db in try store.record(fired("n\(second)", second), in: db) }
            }
            let history = try store.history(limit: 1000)
            // Pruned to 100 every tenth of the limit: never more than 109 rows.
            #expect((100..<110).contains(history.count), "\(history.count)")
            #expect(history.first?.id == "n249")
            #expect(history.map(\.id) == (250 - history.count..<250).reversed().map { "n\($0)" })
            #expect(try store.history(limit: 3).map(\.id) == ["n249", "n248", "n247"])
        }
        // Opened with a smaller limit: the first event written prunes to it.
        let smaller = try Store(directory: directory.url, historyLimit: 20)
        try smaller.write { db in try smaller.record(fired("last", 300), in: db) }
        let history = try smaller.history(limit: 1000)
        #expect(history.count == 20)
        #expect(history.first?.id == "last")
    }

    @Test func entriesKeepEveryField() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        let entry = HistoryEntry(time: Self.start, id: "a", event: .snoozed, title: "Tea", detail: "Again in 30 min.", copy: "b")
        let press = HistoryEntry(time: Self.start, id: "a", event: .pressed, title: "Tea", detail: "Remind", action: "remind")
        try store.write { db in
            try store.record(press, in: db)
            try store.record(entry, in: db)
        }
        #expect(try store.history(limit: 10) == [entry, press])
    }

    /// A calendar item's link is kept with its notification and found by its UID; Chime's
    /// own have none.
    @Test func aCalendarLinkIsKeptAndFoundByItsUID() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        var linked = try notification("a", title: "Dentist")
        linked.link = CalendarLink(uid: "42@example.org", recurrence: "20300101T100000Z", alarm: "#2", source: "/home/u/cal.ics")
        let own = try notification("b", title: "Own")
        let inserted = try store.write { db in [try store.insert(linked, in: db), try store.insert(own, in: db)] }
        #expect(inserted == [true, true])
        #expect(try store.notification(id: "a") == linked)
        #expect(try store.notification(id: "b")?.link == nil)
        #expect(try store.linked(uids: ["42@example.org", "nobody"]) == [linked])
    }

    @Test func cancellingRecordsTitlesAndABulkCancelIsOneRow() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        try store.write { db in
            for (id, title) in [("a", "Alpha"), ("b", "Beta"), ("c", "Gamma")] {
                _ = try store.insert(try notification(id, title: title), in: db)
            }
        }
        let cancelled = try store.write { db in try store.cancel(ids: ["b", "nope"], at: Self.start, detail: "", in: db) }
        #expect(cancelled == ["b"])
        let all = try store.write { db in try store.cancelScheduled(at: Self.start, detail: "All.", in: db) }
        #expect(Set(all) == ["a", "c"])
        #expect(try store.history(limit: 10).map { "\($0.event) \($0.id) \($0.title) \($0.detail)" }
            == ["cancelled c Gamma All.", "cancelled a Alpha All.", "cancelled b Beta "])

        let many = Store.itemizedCancelLimit + 1
        try store.write { db in
            for index in 0..<many { _ = try store.insert(try notification("m\(index)", title: "M"), in: db) }
        }
        #expect(try store.write { db in try store.cancelScheduled(at: Self.start, detail: "All.", in: db) }.count == many)
        let summary = try #require(try store.history(limit: 10).first)
        #expect(summary == HistoryEntry(time: Self.start, id: "", event: .cancelled, title: "\(many) notifications", detail: "All."))
        #expect(try store.history(limit: 10).count == 4)
    }

    /// Cancelling everything scheduled, on both of its ways: whole tables emptied with the
    /// done rows put back (mostly scheduled), or row by row (mostly done).
    @Test(arguments: [(scheduled: 3, done: 1), (scheduled: 1, done: 3)])
    func cancellingEverythingScheduledTakesItsUserInfoAndDeliveriesAndKeepsWhatIsDone(scheduled: Int, done: Int) throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        let scheduledIDs = (0..<scheduled).map { "s\($0)" }, doneIDs = (0..<done).map { "d\($0)" }
        try store.write { db in
            for (seq, id) in (scheduledIDs + doneIDs).enumerated() {
                var reminder = try notification(id, title: id.uppercased())
                reminder.alert.userInfo = ["task": .string(id)]
                _ = try store.insert(reminder, in: db)
                try store.save(StoredDelivery(seq: Int64(seq + 1), id: id, kind: .scheduled, alert: reminder.alert,
                                              due: Self.start), in: db)
            }
            for id in doneIDs { _ = try store.complete(id: id, at: Self.start, in: db) }
        }
        let cancelled = try store.write { db in try store.cancelScheduled(at: Self.start, detail: "All.", in: db) }
        #expect(cancelled.sorted() == scheduledIDs)
        #expect(try store.scheduled() == [])
        for id in doneIDs {
            let kept = try #require(try store.notification(id: id))
            #expect(kept.state == .done && kept.alert.title == id.uppercased() && kept.completed == Self.start)
        }
        #expect(try store.deliveries().deliveries.map(\.id) == doneIDs)
        let database = try Database(path: store.databaseURL.path)
        #expect(try String.fetchAll(database, sql: "SELECT notificationId FROM userInfo ORDER BY 1") == doneIDs)
        // A new one may take a cancelled id, userInfo and all.
        try store.write { db in
            var again = try notification("s0", title: "Again")
            again.alert.userInfo = ["task": .string("again")]
            #expect(try store.insert(again, in: db))
            #expect(try store.ids(matchingKey: "task", value: "again", in: db) == ["s0"])
            // Written over, its userInfo with it; then cancelled alone, the same.
            again.alert.userInfo = ["task": .string("over")]
            #expect(try store.replace(again, detail: "", at: Self.start, in: db))
            #expect(try store.ids(matchingKey: "task", value: "over", in: db) == ["s0"])
            #expect(try store.cancel(ids: ["s0"], at: Self.start, detail: "", in: db) == ["s0"])
        }
        #expect(try String.fetchAll(database, sql: "SELECT notificationId FROM userInfo ORDER BY 1") == doneIDs)
    }

    /// Emptying the schedule is SQLite's truncate optimisation, pages dropped whole, and
    /// not a delete per row: a CancelAll of a million took 22 s while userInfo had a
    /// foreign key on notification, which turns it off. A store from before loses the key.
    @Test func emptyingTheScheduleDropsWholePagesInAStoreOldOrNew() throws {
        let directory = Directory()
        // Back to the userInfo that v1 made, as 0.3 left it.
        try storeWithKept(in: directory, then: """
            DROP TABLE userInfo;
            CREATE TABLE userInfo (
                notificationId TEXT NOT NULL REFERENCES notification(id) ON DELETE CASCADE,
                key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (notificationId, key)) WITHOUT ROWID;
            CREATE INDEX userInfo_keyValue ON userInfo(key, value);
            INSERT INTO userInfo VALUES ('kept', 'task', '7');
            DELETE FROM grdb_migrations WHERE identifier = 'v8: userInfo without a foreign key';
            """)
        func opcodes(_ sql: String) throws -> [String] {
            let database = try Database(path: directory.url.appendingPathComponent("chime.sqlite").path)
            // Foreign keys on, as the store's connection had them until 0.4 and as any
            // program may: a store without the key must not depend on them being off.
            try database.execute(sql: "PRAGMA foreign_keys = ON")
            return try Row.fetchAll(database, sql: "EXPLAIN " + sql).map { try $0["opcode"] }
        }
        #expect(try !opcodes("DELETE FROM notification").contains("Clear"), "the old store deletes row by row")
        let store = try Store(directory: directory.url)
        for table in ["notification", "userInfo"] {
            let program = try opcodes("DELETE FROM \(table)")
            #expect(program.contains("Clear") && !program.contains("Delete"), "\(table): \(program)")
        }
        #expect(try store.write { db in try store.ids(matchingKey: "task", value: "7", in: db) } == ["kept"])
    }

    /// Start-up reads every due time off the index of due times alone, without a lookup
    /// in the table per row (0.9 s of a million's start-up); a store from before gets the index.
    @Test func dueTimesAreReadFromTheIndexAloneInAStoreOldOrNew() throws {
        let directory = Directory()
        // Back to the index of nextFire alone that v1 made.
        try storeWithKept(in: directory, then: """
            DROP INDEX notification_nextFire;
            CREATE INDEX notification_nextFire ON notification(nextFire) WHERE nextFire IS NOT NULL;
            DELETE FROM grdb_migrations WHERE identifier = 'v9: due times from the index alone';
            """)
        func plan() throws -> String {
            let database = try Database(path: directory.url.appendingPathComponent("chime.sqlite").path)
            defer { database.close() }
            return try Row.fetchAll(database, sql: "EXPLAIN QUERY PLAN " + Store.dueTimesSQL).map { try $0["detail"] as String }
                .joined(separator: "; ")
        }
        let before = try plan()
        #expect(!before.contains("COVERING"), "the old store looks each row up: \(before)")
        let store = try Store(directory: directory.url)
        let after = try plan()
        #expect(after.contains("USING COVERING INDEX notification_nextFire"), "\(after)")
        #expect(try store.dueTimes().map(\.id) == ["kept"])
    }

    @Test func historyOfFollowsTheLineageAfterTheRowsAreGone() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        try store.write { db in
            _ = try store.insert(try notification("root", title: "Pills"), in: db)
            _ = try store.insert(try notification("copy", title: "Pills", origin: "root"), in: db)
            _ = try store.insert(try notification("other", title: "Other"), in: db)
            try store.record(fired("root", 1), in: db)
            try store.record(HistoryEntry(time: Self.start, id: "root", event: .snoozed, title: "Pills", copy: "copy"), in: db)
            try store.record(fired("other", 2), in: db)
            try store.record(fired("copy", 3), in: db)
        }
        #expect(try store.history(of: "copy", limit: 10)?.map(\.id) == ["copy", "root", "root"])
        #expect(try store.history(of: "root", limit: 2)?.map(\.id) == ["copy", "root"])
        #expect(try store.history(of: "nope", limit: 10) == nil)
        // Scheduled but nothing happened yet: known, with no events.
        try store.write { db in _ = try store.insert(try notification("quiet", title: "Q"), in: db) }
        #expect(try store.history(of: "quiet", limit: 10) == [])

        _ = try store.write { db in try store.cancel(ids: ["copy", "root"], at: Self.start, detail: "", in: db) }
        #expect(try store.history(of: "copy", limit: 10)?.map(\.event) == [.cancelled, .cancelled, .fired, .snoozed, .fired])
    }

    /// Makes a store in `directory` holding "kept", then changes its file with `sql`, as an
    /// earlier version left it.
    func storeWithKept(in directory: Directory, then sql: String, _ arguments: [any SQLiteConvertible] = []) throws {
        do {
            let store = try Store(directory: directory.url)
            try store.write { db in _ = try store.insert(try notification("kept", title: "Kept"), in: db) }
        }
        try rollBack(directory, sql, arguments)
    }

    /// Runs `sql` on the store file in `directory` in one transaction: the schema an older
    /// version left, made from today's.
    func rollBack(_ directory: Directory, _ sql: String, _ arguments: [any SQLiteConvertible] = []) throws {
        let database = try Database(path: directory.url.appendingPathComponent("chime.sqlite").path)
        defer { database.close() }
        try database.inTransaction { try database.execute(sql: sql, arguments: arguments) }
    }

    @Test func aStoreFromBeforeTheHistoryIsMigrated() throws {
        let directory = Directory()
        // Back to the schema 0.2.0 wrote: the v1 and v2 migrations only.
        try storeWithKept(in: directory, then: "DELETE FROM grdb_migrations WHERE identifier IN ('v3: history', 'v6: history in the state folder')")
        let store = try Store(directory: directory.url)
        #expect(try store.notification(id: "kept")?.alert.title == "Kept")
        #expect(try store.history(limit: 10) == [])
        try store.write { db in try store.record(fired("kept", 1, title: "Kept"), in: db) }
        #expect(try store.history(of: "kept", limit: 10)?.map(\.title) == ["Kept"])
    }

    @Test(arguments: ["vietnamese", "ethiopicAmeteAlem"])
    func aRuleStoredWithACalendarNoLongerOfferedKeepsFiringOnTheGregorianOne(calendar: String) throws {
        let directory = Directory()
        // Earlier versions stored these names, and counted months in them as Gregorian ones.
        try storeWithKept(in: directory, then: "UPDATE notification SET calendar = ?", [calendar])
        let store = try Store(directory: directory.url)
        #expect(try store.notification(id: "kept")?.rule.calendar == "gregorian")
        #expect(try store.scheduled().map(\.id) == ["kept"])
    }
}

// MARK: - Faults: cannot open now, damage, backup, modes

extension StoreTests {
    /// `count` reminders titled R0000…, each with a userInfo entry.
    func fill(_ store: Store, count: Int, from first: Int = 0) throws {
        try store.write { db in
            for index in first..<first + count {
                var reminder = try notification(Self.id(index), title: "R" + Self.id(index))
                reminder.alert.userInfo = ["n": .integer(Int64(index))]
                _ = try store.insert(reminder, in: db)
            }
        }
    }

    static func id(_ index: Int) -> String { String(repeating: "0", count: 4 - String(index).count) + String(index) }

    /// Writes garbage over `count` leaf pages of `table` from the middle of the file;
    /// returns how many rows lived on them.
    @discardableResult
    func damageLeafPages(in directory: URL, count: Int, of table: String = "notification", file: String = "chime.sqlite") throws -> Int {
        let path = directory.appendingPathComponent(file).path
        var pages: [(page: Int, rows: Int)] = []
        do {
            let database = try Database(path: path)
            pages = try Row.fetchAll(database, sql: "SELECT pageno, ncell FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno",
                                     arguments: [table]).map { (try $0[0], try $0[1]) }
            database.close()
        }
        #expect(pages.count >= count + 2, "\(pages.count) leaf pages")
        let chosen = pages.dropFirst((pages.count - count) / 2).prefix(count)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        for page in chosen {
            try handle.seek(toOffset: UInt64(page.page - 1) * 4096)
            try handle.write(contentsOf: Data(repeating: 0x5a, count: 4096))
        }
        try handle.close()
        return chosen.map(\.rows).reduce(0, +)
    }

    func files(in directory: Directory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.url.path).sorted()
    }

    /// A history that cannot be opened now (here a folder where the file should be) is
    /// not damage: the start stops naming it, and neither it nor the store is set aside.
    @Test func aHistoryThatCannotBeOpenedNowStopsTheStartByName() throws {
        let directory = Directory()
        let (state, history) = try storeWithHistoryInTheWay(in: directory)
        #expect {
            try Store(directory: directory.url, stateDirectory: state)
        } throws: { error in
            guard let error = error as? StoreError, case .cannotOpen(let path, _) = error else { return false }
            return path.hasSuffix("/history.sqlite")
        }
        #expect(try files(in: directory).filter { $0.contains("damaged") }.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).filter { $0.contains("damaged") }.isEmpty)
        try FileManager.default.removeItem(at: history)
        #expect(try Store(directory: directory.url, stateDirectory: state).scheduled().count == 10)
    }

    /// A history attached when first needed: not by reading the schedule, but by the first
    /// change or history read, which find what the file holds; a new store's migrations
    /// attach it at once.
    @Test func aHistoryAttachedWhenFirstNeededIsThereForTheFirstChangeAndRead() throws {
        let directory = Directory()
        let state = try storeWithHistory(in: directory, count: 10)
        let reading = try Store(directory: directory.url, stateDirectory: state, history: .whenFirstNeeded)
        #expect(!reading.historyAttached)
        #expect(try reading.scheduled().count == 10)
        #expect(!reading.historyAttached)
        #expect(try reading.history(limit: 1).map(\.id) == ["n499"])
        #expect(reading.historyAttached)
        reading.close()

        let writing = try Store(directory: directory.url, stateDirectory: state, history: .whenFirstNeeded)
        #expect(!writing.historyAttached)
        try writing.write { db in try writing.record(fired("first", 600), in: db) }
        #expect(writing.historyAttached)
        #expect(try writing.history(limit: 2).map(\.id) == ["first", "n499"])
        writing.close()

        let fresh = Directory()
        let new = try Store(directory: fresh.url, stateDirectory: fresh.url.appendingPathComponent("state"), history: .whenFirstNeeded)
        #expect(new.historyAttached)
    }

    /// Attached when first needed, a history that cannot be opened now lets the store open
    /// and refuses each change by name, losing nothing, until it can be opened.
    @Test func aHistoryThatCannotBeOpenedWhenFirstNeededRefusesChangesByName() throws {
        let directory = Directory()
        let (state, history) = try storeWithHistoryInTheWay(in: directory)
        let store = try Store(directory: directory.url, stateDirectory: state, history: .whenFirstNeeded)
        #expect(try store.scheduled().count == 10)
        for _ in 0..<2 {
            #expect {
                try store.write { db in try store.record(fired("refused", 1), in: db) }
            } throws: { error in
                guard let error = error as? StoreError, case .cannotOpen(let path, _) = error else { return false }
                return path.hasSuffix("/history.sqlite") && error.mayPass
            }
        }
        #expect(!store.historyAttached)
        try FileManager.default.removeItem(at: history)
        try store.attachHistory()
        try store.write { db in try store.record(fired("then", 2), in: db) }
        #expect(try store.history(limit: 10).map(\.id) == ["then"])
        #expect(try store.scheduled().count == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).filter { $0.contains("damaged") }.isEmpty)
    }

    @Test func aStoreThatCannotBeOpenedNowIsLeftAsItIs() throws {
        let directory = Directory()
        // SQLite cannot open a folder: an error that is not damage.
        try FileManager.default.createDirectory(at: directory.url.appendingPathComponent("chime.sqlite"), withIntermediateDirectories: true)
        #expect {
            try Store(directory: directory.url)
        } throws: { error in
            guard let error = error as? StoreError, case .cannotOpen(let path, _) = error else { return false }
            return path.hasSuffix("/chime.sqlite") && error.mayPass && "\(error)".contains("Nothing was moved or deleted")
        }
        #expect(try files(in: directory).filter { !$0.hasPrefix("history.sqlite") } == ["chime.sqlite", "lock"])
    }

    @Test func damagedPagesAreSalvagedRowByRowAndTheDamagedFileIsKept() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url)
            try fill(store, count: 300)
            try store.write { db in try store.record(fired("0001", 1), in: db) }
        }
        let lost = try damageLeafPages(in: directory.url, count: 3)
        #expect(lost > 0)

        let store = try Store(directory: directory.url)
        let recovery = try #require(store.recovery)
        #expect(!store.recoveryTold)
        #expect(recovery.expected == 300)
        #expect(recovery.recovered == 300 - lost)
        #expect(recovery.backup == nil && recovery.fromBackup == 0)
        #expect(recovery.title == "Chime recovered \(300 - lost) of 300 reminders")
        #expect(recovery.keptAs.contains("/chime.sqlite.damaged-"))
        #expect(FileManager.default.fileExists(atPath: recovery.keptAs))
        #expect(try store.scheduled().count == 300 - lost)
        #expect(try store.history(limit: 10).map(\.id) == ["0001"])
        // userInfo was rebuilt from what was recovered: matching finds exactly those.
        let survivors = try store.scheduled().map(\.id)
        let matched = try store.write { db in try store.ids(matchingKey: "n", value: "299", in: db) }
        #expect(matched == (survivors.contains("0299") ? ["0299"] : []))
        try fill(store, count: 1, from: 1000)
        #expect(try store.scheduled().count == 301 - lost)

        // Told once: the store remembers.
        store.close()
        let again = try Store(directory: directory.url)
        #expect(again.recovery == recovery)
        #expect(!again.recoveryTold)
        try again.write { db in try again.markRecoveryTold(in: db) }
        again.close()
        #expect(try Store(directory: directory.url).recoveryTold)
    }

    @Test func rowsTheIndexesStillListComeBackFromTheBackupButCancelledOnesDoNot() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url)
            try fill(store, count: 300)
            try store.backUp()
            // After the backup: ten cancelled, one more scheduled.
            _ = try store.write { db in
                try store.cancel(ids: (140..<150).map(Self.id), at: Self.start, detail: "", in: db)
            }
            try fill(store, count: 1, from: 300)
        }
        let lost = try damageLeafPages(in: directory.url, count: 3)
        let store = try Store(directory: directory.url)
        let recovery = try #require(store.recovery)
        #expect(recovery.expected == 291)
        #expect(recovery.recovered == 291)
        #expect(recovery.fromBackup > 0 && recovery.fromBackup <= lost)
        let ids = Set(try store.scheduled().map(\.id))
        #expect(ids == Set((0..<301).filter { !(140..<150).contains($0) }.map(Self.id)))
        #expect(try store.write { db in try store.ids(matchingKey: "n", value: "150", in: db) } == ["0150"])
    }

    @Test func aScheduleReadInFullIsNotRefilledFromTheBackupEvenWhenEmpty() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url)
            try fill(store, count: 10)
            try store.backUp()
            _ = try store.write { db in try store.cancelScheduled(at: Self.start, detail: "All.", in: db) }
            try store.write { db in
                for key in 0..<500 { try store.setMeta("k\(key)", "A value long enough to fill pages", in: db) }
            }
        }
        try damageLeafPages(in: directory.url, count: 2, of: "meta")
        let store = try Store(directory: directory.url)
        let recovery = try #require(store.recovery)
        #expect(recovery.backup == nil && recovery.recovered == 0 && recovery.expected == 0)
        #expect(recovery.title == "Chime repaired its store; no reminder was lost")
        #expect(try store.scheduled().isEmpty)
    }

    /// A store of `count` reminders in `directory`, and a history of 500 events in its
    /// `state` folder, which it returns: enough pages of each to damage some.
    func storeWithHistory(in directory: Directory, count: Int) throws -> URL {
        let state = directory.url.appendingPathComponent("state")
        let store = try Store(directory: directory.url, stateDirectory: state)
        try fill(store, count: count)
        try store.write { db in
            for second in 0..<500 { try store.record(fired("n\(second)", second, title: "A title long enough to fill pages"), in: db) }
        }
        return state
    }

    /// A store of 10 whose history file is a folder: SQLite cannot open it, and it is no
    /// damage. Returns the state folder and the history's path.
    func storeWithHistoryInTheWay(in directory: Directory) throws -> (URL, URL) {
        let state = try storeWithHistory(in: directory, count: 10)
        let history = state.appendingPathComponent("history.sqlite")
        try FileManager.default.removeItem(at: history)
        try FileManager.default.createDirectory(at: history, withIntermediateDirectories: true)
        return (state, history)
    }

    @Test func aDamagedHistoryIsSetAsideAndTheScheduleKept() throws {
        let directory = Directory()
        let state = try storeWithHistory(in: directory, count: 10)
        try damageLeafPages(in: state, count: 2, of: "history", file: "history.sqlite")
        let store = try Store(directory: directory.url, stateDirectory: state)
        #expect(store.recovery == nil)
        #expect(store.notices.contains { $0.contains("history.sqlite was damaged") && $0.contains("a new one was started") }, "\(store.notices)")
        #expect(try store.scheduled().count == 10)
        #expect(try store.history(limit: 1000).isEmpty)
        try store.write { db in try store.record(fired("0001", 1), in: db) }
        #expect(try store.history(limit: 10).map(\.id) == ["0001"])
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(files.contains { $0.hasPrefix("history.sqlite.damaged-") }, "\(files)")
    }

    /// The history is checked on the store's connection after the store's own check, so a
    /// damaged store is recovered first and the history's notice is not lost with it.
    @Test func aDamagedStoreAndADamagedHistoryAreBothRepairedAndBothSaid() throws {
        let directory = Directory()
        let state = try storeWithHistory(in: directory, count: 300)
        try damageLeafPages(in: directory.url, count: 2)
        try damageLeafPages(in: state, count: 2, of: "history", file: "history.sqlite")
        let store = try Store(directory: directory.url, stateDirectory: state)
        let recovery = try #require(store.recovery)
        #expect(recovery.keptAs.contains("/chime.sqlite.damaged-"))
        #expect(store.notices.contains { $0.contains("history.sqlite was damaged") }, "\(store.notices)")
        #expect(try store.history(limit: 1000).isEmpty)
        let files = try FileManager.default.contentsOfDirectory(atPath: state.path)
        #expect(files.contains { $0.hasPrefix("history.sqlite.damaged-") }, "\(files)")
    }

    @Test func aDestroyedHeaderFallsBackOnTheBackup() throws {
        let directory = Directory()
        var made: Date?
        do {
            let store = try Store(directory: directory.url)
            try fill(store, count: 10)
            try store.backUp()
            made = store.lastBackup
            let mode = try FileManager.default.attributesOfItem(atPath: store.backupURL.path)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            try fill(store, count: 2, from: 10)
        }
        let handle = try FileHandle(forWritingTo: directory.url.appendingPathComponent("chime.sqlite"))
        try handle.write(contentsOf: Data(repeating: 0, count: 100))
        try handle.close()

        let store = try Store(directory: directory.url)
        let recovery = try #require(store.recovery)
        #expect(recovery.backup.map { abs($0.timeIntervalSince(made ?? .distantPast)) < 1 } == true)
        #expect(recovery.recovered == 10 && recovery.expected == nil)
        #expect(recovery.title == "Chime recovered 10 reminders from its backup")
        #expect(recovery.body.contains("recovered from the backup of"))
        #expect(Set(try store.scheduled().map(\.id)) == Set((0..<10).map(Self.id)))
        // The backup stays, and the damaged file is kept.
        let kept = try files(in: directory).filter { $0.hasPrefix("chime.sqlite.") }
        #expect(kept.map { $0.prefix(20) } == ["chime.sqlite.backup", "chime.sqlite.damaged"], "\(kept)")
    }

    @Test func aDestroyedHeaderWithoutBackupStartsAfreshAndKeepsTheFile() throws {
        let directory = Directory()
        do { try fill(try Store(directory: directory.url), count: 10) }
        let file = directory.url.appendingPathComponent("chime.sqlite")
        let handle = try FileHandle(forWritingTo: file)
        try handle.write(contentsOf: Data(repeating: 0x5a, count: 4096))
        try handle.close()
        let damaged = try Data(contentsOf: file)

        let store = try Store(directory: directory.url)
        let recovery = try #require(store.recovery)
        #expect(recovery.recovered == 0 && recovery.expected == nil && recovery.backup == nil)
        #expect(recovery.title == "Chime could not recover its reminders")
        #expect(try Data(contentsOf: URL(fileURLWithPath: recovery.keptAs)) == damaged)
        #expect(try store.scheduled().isEmpty)
    }

    /// SQLite keeps the WAL files between starts, so that opening need not make them
    /// again, but empty once the store is closed (or dropped): a file put in the store's
    /// place while chimed is stopped never meets a WAL written for another.
    @Test func theWALFilesStayButEmptyBetweenStarts() throws {
        let directory = Directory()
        func size(_ name: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: directory.url.appendingPathComponent(name).path))?[.size] as? Int
        }
        do { try fill(try Store(directory: directory.url), count: 10) }
        #expect(size("chime.sqlite-wal") == 0 && size("history.sqlite-wal") == 0)
        #expect(size("chime.sqlite-shm") != nil && size("history.sqlite-shm") != nil)
        let store = try Store(directory: directory.url)
        try fill(store, count: 1, from: 10)
        #expect((size("chime.sqlite-wal") ?? 0) > 0)
        store.close()
        #expect(size("chime.sqlite-wal") == 0 && size("history.sqlite-wal") == 0)
        #expect(try Store(directory: directory.url).scheduled().count == 11)
    }

    @Test func looseModesAreTightened() throws {
        let directory = Directory()
        do { _ = try Store(directory: directory.url) }
        let file = directory.url.appendingPathComponent("chime.sqlite").path
        chmod(directory.url.path, 0o755)
        chmod(file, 0o644)
        let store = try Store(directory: directory.url)
        #expect(try FileManager.default.attributesOfItem(atPath: directory.url.path)[.posixPermissions] as? Int == 0o700)
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        // The folder, the store, and the WAL files SQLite keeps beside it, which it made
        // with the store's mode (the test's umask is looser than chimed's).
        #expect(store.notices.count == 4, "\(store.notices)")
        #expect(store.notices.first?.contains("had mode 755; it is now 700") == true)
        for name in ["chime.sqlite", "chime.sqlite-wal", "chime.sqlite-shm"] {
            #expect(store.notices.contains { $0.contains("/\(name) had mode 644; it is now 600") }, "\(store.notices)")
        }
        store.close()
        #expect(try Store(directory: directory.url).notices.isEmpty)
    }

    @Test func aFullDiskIsAClauseThatNamesTheFolder() {
        let error = StoreError.diskFull("/home/u/.local/share/chime")
        #expect("Not scheduled: \(error.clause)" == "Not scheduled: the disk holding /home/u/.local/share/chime is full.")
    }
}

// MARK: - Places

extension StoreTests {
    func place(_ id: String) throws -> ScheduledNotification {
        let region = try Region(latitude: 52.52, longitude: 13.405, radius: 150, identifier: "shop")
        let place = try Place(.region(region), notifyOnEntry: true, notifyOnExit: false, triggersOnce: true)
        return ScheduledNotification(id: id, alert: Alert(title: "Buy milk"), rule: try FireRule(trigger: .place(place)),
                                     lateLimit: nil, created: Self.start, nextIndex: 0, nextFire: nil)
    }

    @Test func aPlaceIsStoredWithWhereTheUserIsAndStaysOutOfTheDueTimes() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        let milk = try place("milk")
        #expect(milk.state == .scheduled)
        try store.write { db in
            _ = try store.insert(milk, in: db)
            _ = try store.insert(try notification("dated", title: "Dated"), in: db)
            try store.recordPresence(id: "milk", .outside, in: db)
        }
        #expect(try store.dueTimes().map(\.id) == ["dated"])
        #expect(try store.scheduled().map(\.id) == ["dated", "milk"])
        let read = try #require(try store.scheduledPlaces().first)
        #expect(read.rule == milk.rule)
        #expect(read.presence == .outside)
        try store.write { db in try store.recordCrossing(id: "milk", at: Self.start, presence: .inside, done: true, in: db) }
        let fired = try #require(try store.notification(id: "milk"))
        #expect(fired.state == .done && fired.fireCount == 1 && fired.presence == .inside && fired.lastFired == Self.start)
        #expect(try store.scheduledPlaces().isEmpty)
    }

    @Test func aStoreFromBeforePlacesOpensWithEverythingKept() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url)
            try store.write { db in _ = try store.insert(try notification("kept", title: "Kept"), in: db) }
        }
        // Back to the schema 0.4 wrote: through v4, without the place columns.
        try rollBack(directory, """
            DROP INDEX notification_place;
            ALTER TABLE notification DROP COLUMN placePresence;
            ALTER TABLE notification DROP COLUMN place;
            DELETE FROM grdb_migrations WHERE identifier = 'v5: places';
            """)
        let store = try Store(directory: directory.url)
        #expect(try store.notification(id: "kept")?.alert.title == "Kept")
        #expect(try store.dueTimes().map(\.id) == ["kept"])
        try store.write { db in _ = try store.insert(try place("milk"), in: db) }
        #expect(try store.scheduledPlaces().map(\.id) == ["milk"])
    }

    @Test func aStoreFromBeforeRRulesKeepsItsRepeatsAndTakesNewOnes() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url)
            var daily = try notification("daily", title: "Daily")
            daily.rule.recurrence = try Recurrence(unit: .day, count: 2)
            try store.write { db in _ = try store.insert(daily, in: db) }
        }
        // Back to a schema through v6, without the rrule and skipped columns.
        try rollBack(directory, """
            ALTER TABLE notification DROP COLUMN skipped;
            ALTER TABLE notification DROP COLUMN rrule;
            DELETE FROM grdb_migrations WHERE identifier = 'v7: rrule';
            """)
        let store = try Store(directory: directory.url)
        let kept = try #require(try store.notification(id: "daily"))
        let everyOtherDay = try Recurrence(unit: .day, count: 2)
        #expect(kept.alert.title == "Daily" && kept.rule.recurrence == everyOtherDay)
        var weekly = try notification("weekly", title: "Weekly")
        weekly.rule.recurrence = try Recurrence.parse(rrule: "FREQ=WEEKLY;BYDAY=MO,FR;COUNT=4").0
        weekly.rule.skipped = [try #require(LocalDateTime(iso: "2027-01-15T08:00"))]
        try store.write { db in _ = try store.insert(weekly, in: db) }
        let read = try #require(try store.notification(id: "weekly"))
        #expect(read.rule.recurrence?.rrule() == "FREQ=WEEKLY;BYDAY=MO,FR;COUNT=4")
        #expect(read.rule.skipped == weekly.rule.skipped)
    }
    /// A month's `repeat` takes a short month's last day, an RRULE leaves the month out, and
    /// an alarm ahead of its item keeps its lead: each reads back so, and a row from before
    /// v12 (when every monthly repeat took the last day) still does.
    @Test func monthEndsAndLeadsReadBackAndOlderRowsKeepTheLastDay() throws {
        let directory = Directory()
        let start = LocalDateTime(year: 2027, month: 1, day: 31, hour: 9)
        func made(_ id: String, _ recurrence: Recurrence, lead: Int = 0) throws -> ScheduledNotification {
            let rule = try FireRule(trigger: .zoned(start, zone: "America/New_York"), recurrence: recurrence).leading(by: lead)
            return ScheduledNotification(id: id, alert: Alert(title: id), rule: rule, lateLimit: nil, created: Self.start,
                                         nextIndex: 0, nextFire: rule.occurrence(0, systemZone: .utc))
        }
        let kept = [try made("repeat", Recurrence(unit: .month)), try made("rrule", Recurrence.parse(rrule: "FREQ=MONTHLY").0),
                    try made("forward", Recurrence.parse(rrule: "FREQ=YEARLY;RSCALE=GREGORIAN;SKIP=FORWARD").0),
                    try made("ahead", Recurrence.parse(rrule: "FREQ=DAILY").0, lead: 900)]
        do {
            let store = try Store(directory: directory.url)
            try store.write { db in for notification in kept { _ = try store.insert(notification, in: db) } }
            for notification in kept { #expect(try store.notification(id: notification.id)?.rule == notification.rule) }
            let ahead = try #require(try store.notification(id: "ahead")?.rule)
            #expect(ahead.lead == 900 && ahead.fireTrigger == .zoned(LocalDateTime(year: 2027, month: 1, day: 31, hour: 9), zone: "America/New_York"))
        }
        // Back to the schema before v12: no month ends, no leads.
        try rollBack(directory, """
            ALTER TABLE notification DROP COLUMN lead;
            ALTER TABLE notification DROP COLUMN monthEnds;
            DELETE FROM grdb_migrations WHERE identifier = 'v12: month ends and leads';
            """)
        let store = try Store(directory: directory.url)
        for id in ["repeat", "rrule", "forward"] { #expect(try store.notification(id: id)?.rule.recurrence?.skip == .backward, "\(id)") }
        let ahead = try #require(try store.notification(id: "ahead")?.rule)
        #expect(ahead.lead == 0 && ahead.trigger == .zoned(LocalDateTime(year: 2027, month: 1, day: 31, hour: 9), zone: "America/New_York"))
    }
}
