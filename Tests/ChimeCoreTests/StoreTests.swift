import ChimeCore
import Foundation
import GRDB
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

    @Test func aStoreFromBeforeTheHistoryIsMigrated() throws {
        let directory = Directory()
        do {
            let store = try Store(directory: directory.url)
            try store.write { db in _ = try store.insert(try notification("kept", title: "Kept"), in: db) }
        }
        // Back to the schema 0.2.0 wrote: the v1 and v2 migrations only.
        do {
            let database = try DatabaseQueue(path: directory.url.appendingPathComponent("chime.sqlite").path)
            try database.write { db in
                try db.execute(sql: "DROP TABLE history; DELETE FROM grdb_migrations WHERE identifier = 'v3: history'")
            }
        }
        let store = try Store(directory: directory.url)
        #expect(try store.notification(id: "kept")?.alert.title == "Kept")
        #expect(try store.history(limit: 10) == [])
        try store.write { db in try store.record(fired("kept", 1, title: "Kept"), in: db) }
        #expect(try store.history(of: "kept", limit: 10)?.map(\.title) == ["Kept"])
    }
}
