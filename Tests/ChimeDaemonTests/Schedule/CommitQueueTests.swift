import ChimeCore
import EventLoop
import Foundation
import Testing
@testable import ChimeDaemon

/// Group commit: many callers' changes in one transaction, none able to fail another.
struct CommitQueueTests {
    final class Directory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("chime-commits-\(UUID().uuidString)")
        deinit { try? FileManager.default.removeItem(at: url) }
    }

    struct Refused: Error {}

    func notification(_ id: String, _ alert: Alert) throws -> ScheduledNotification {
        let due = Date(timeIntervalSince1970: 1_800_000_000)
        return ScheduledNotification(id: id, alert: alert, rule: try FireRule(trigger: .absolute(due)), lateLimit: nil,
                                     created: due, nextIndex: 0, nextFire: due)
    }

    @Test func aChangeThatThrowsFailsAloneAndIsRolledBack() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        let queue = CommitQueue(store: store, loop: EventLoop())
        var results: [String: Result<Void, StoreError>] = [:]
        queue.stage({ db in try store.setMeta("a", "1", in: db) }, done: { results["a"] = $0 })
        queue.stage({ db in
            try store.setMeta("b", "2", in: db)
            throw Refused()
        }, done: { results["b"] = $0 })
        queue.stage({ db in try store.setMeta("c", "3", in: db) }, done: { results["c"] = $0 })
        queue.commit()

        #expect(throws: Never.self) { try results["a"]?.get() }
        #expect(throws: Never.self) { try results["c"]?.get() }
        guard case .failure = results["b"] else { Issue.record("b should have failed: \(String(describing: results["b"]))"); return }
        #expect(try store.meta("a") == "1")
        #expect(try store.meta("c") == "3")
        // What the failed change wrote before it threw is gone with it.
        #expect(try store.meta("b") == nil)
    }

    /// A NaN in an alert cannot be stored (its JSON has no NaN): the alert next to it in
    /// the batch, another caller's, is stored all the same.
    @Test func aNaNNeverFailsAnotherCallersInsert() throws {
        let directory = Directory()
        let store = try Store(directory: directory.url)
        let queue = CommitQueue(store: store, loop: EventLoop())
        var bad = Alert(title: "Bad")
        bad.userInfo["x"] = .double(.nan)
        var results: [String: Result<Void, StoreError>] = [:]
        queue.stage({ db in _ = try store.insert(try self.notification("bad00000", bad), in: db) }, done: { results["bad"] = $0 })
        queue.stage({ db in _ = try store.insert(try self.notification("good0000", Alert(title: "Good")), in: db) },
                    done: { results["good"] = $0 })
        queue.commit()

        #expect(throws: Never.self) { try results["good"]?.get() }
        guard case .failure = results["bad"] else { Issue.record("the NaN should have failed"); return }
        #expect(try store.notification(id: "good0000")?.alert.title == "Good")
        #expect(try store.notification(id: "bad00000") == nil)
    }
}
