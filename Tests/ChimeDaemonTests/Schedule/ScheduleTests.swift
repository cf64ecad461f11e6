import ChimeAPI
@testable import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// The schedule's one owner: after every change, and after a change the store refuses,
/// the store and the heap of due times (and the place watch) say the same.
struct ScheduleTests {
    /// A schedule with its timer and place watch on the delivery harness, started as chimed starts it.
    final class Harness {
        let delivery: DeliveryHarness
        let places: PlaceTriggers
        let schedule: Schedule
        let fireTimer: FireTimer
        var store: Store { delivery.store }
        var time: FakeTime { delivery.time }

        init() throws {
            delivery = try DeliveryHarness()
            let logger = delivery.log.logger
            places = PlaceTriggers(presenter: delivery.presenter, time: delivery.time, loop: delivery.loop, logger: logger)
            schedule = Schedule(store: delivery.store, commits: delivery.commits, places: places, logger: logger)
            fireTimer = FireTimer(store: delivery.store, schedule: schedule, presenter: delivery.presenter, commits: delivery.commits,
                                  time: delivery.time, logger: logger)
            try fireTimer.start()
            try schedule.loadPlaces()
        }

        /// Runs `change` through the group commit, as the loop's turn after a bus call does.
        func run<T>(_ change: (@escaping (Result<T, StoreError>) -> Void) -> Void) throws -> Result<T, StoreError> {
            var result: Result<T, StoreError>?
            change { result = $0 }
            delivery.commits.commit()
            return try #require(result)
        }

        /// Adds `notifications` one by one, each as Schedule does.
        func add(_ notifications: ScheduledNotification...) throws {
            for notification in notifications { _ = try run { schedule.add(notification, done: $0) }.get() }
        }

        /// A notification due `seconds` from now (whole seconds: the store keeps them exactly).
        func reminder(_ id: String, in seconds: TimeInterval, every unit: RepeatUnit? = nil, project: String? = nil,
                      body: String = "") throws -> ScheduledNotification {
            let due = time.now.addingTimeInterval(seconds)
            var alert = Alert(title: id)
            alert.body = body
            if let project { alert.userInfo["project"] = .string(project) }
            let rule = try FireRule(trigger: .absolute(due), recurrence: try unit.map { try Recurrence(unit: $0, count: 1) })
            return ScheduledNotification(id: id, alert: alert, rule: rule, lateLimit: nil, created: time.now, nextIndex: 0, nextFire: due)
        }

        /// A notification that fires on joining the network Office.
        func office(_ id: String = "office") throws -> ScheduledNotification {
            let place = try Place(.network("Office"), notifyOnEntry: true, notifyOnExit: false, triggersOnce: true)
            return ScheduledNotification(id: id, alert: Alert(title: id), rule: try FireRule(trigger: .place(place)), lateLimit: nil,
                                         created: time.now, nextIndex: 0, nextFire: nil)
        }

        /// Expects the store's due times to be the heap's, id for id, and its scheduled place
        /// notifications to be the ones watched.
        func expectAgreement(after step: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            delivery.commits.commit()
            let stored = Dictionary(uniqueKeysWithValues: try store.dueTimes().map { ($0.id, $0.nextFire) })
            let storedPlaces = try store.scheduledPlaces().map(\.id).sorted()
            #expect(schedule.heapDueTimes == stored, "after \(step)", sourceLocation: sourceLocation)
            #expect(schedule.upcoming.count == stored.count, "after \(step)", sourceLocation: sourceLocation)
            #expect(schedule.watchedPlaceIDs == storedPlaces, "after \(step)", sourceLocation: sourceLocation)
        }

        /// Both halves, whole: the store's scheduled rows and history, the heap and the watch.
        struct State: Equatable {
            let rows: [ScheduledNotification]
            let history: Int
            let heap: [String: Date]
            let heapEntries: Int
            let watched: [String]
        }

        func state() throws -> State {
            delivery.commits.commit()
            return State(rows: try store.scheduled(), history: try store.history(limit: 10_000).count, heap: schedule.heapDueTimes,
                         heapEntries: schedule.heapEntryCount, watched: schedule.watchedPlaceIDs)
        }

        // MARK: Faults

        /// The store's file may not grow, as on a full disk: a write that needs one page
        /// more gets SQLITE_FULL.
        func fillDisk() throws {
            let pages = try #require(try Int.fetchOne(store.database, sql: "PRAGMA main.page_count"))
            try store.database.execute(sql: "PRAGMA main.max_page_count = \(pages)")
        }

        func freeDisk() throws {
            try store.database.execute(sql: "PRAGMA main.max_page_count = 1073741823")
        }

        /// Every write refused (SQLITE_READONLY), whatever it changes: a delete needs no room.
        func refuseWrites(_ refused: Bool) throws {
            try store.database.execute(sql: "PRAGMA query_only = \(refused ? 1 : 0)")
        }
    }

    // MARK: - Agreement

    @Test func everyChangeLeavesTheStoreAndTheHeapInAgreement() throws {
        let harness = try Harness()
        let now = harness.time.now
        try harness.add(try harness.reminder("alarm", in: 3_600, project: "chime"), try harness.reminder("stretch", in: 600, every: .minute),
                        try harness.office())
        try harness.expectAgreement(after: "Schedule")
        #expect(harness.schedule.watchedPlaceIDs == ["office"])

        let imported = [try harness.reminder("tea", in: 120), try harness.reminder("call", in: 7_200, project: "chime")]
        #expect(try harness.run { harness.schedule.add(imported, done: $0) }.get().map(\.id) == ["tea", "call"])
        try harness.expectAgreement(after: "an import")

        var alarm = try #require(try harness.store.notification(id: "alarm"))
        alarm.rule = try FireRule(trigger: .absolute(now.addingTimeInterval(1_800)))
        alarm.nextFire = now.addingTimeInterval(1_800)
        #expect(try harness.run { harness.schedule.update(alarm, detail: "Changed when.", at: now, done: $0) }.get())
        try harness.expectAgreement(after: "Update")
        #expect(harness.schedule.heapDueTimes["alarm"] == now.addingTimeInterval(1_800))

        var stretch = try #require(try harness.store.notification(id: "stretch"))
        stretch.rule.skipped.insert(try #require(stretch.rule.wallClock(ofOccurrence: 0, systemZone: .utc)))
        let next = try #require(stretch.rule.firstOccurrence(onOrAfter: now.addingTimeInterval(600), systemZone: .utc))
        (stretch.nextIndex, stretch.nextFire) = (next.index, next.date)
        _ = try harness.run { harness.schedule.skip(stretch, done: $0) }.get()
        try harness.expectAgreement(after: "Skip")
        #expect(harness.schedule.heapDueTimes["stretch"] == now.addingTimeInterval(660))

        let copy = try harness.reminder("copy0001", in: 300)
        let snoozed = try harness.run { done in
            harness.schedule.addSnoozed(copy, of: "alarm", event: {
                HistoryEntry(time: now, id: "alarm", event: .snoozed, title: "alarm", detail: "Again in 5 minutes.", copy: $0)
            }, done: done)
        }.get()
        #expect(snoozed.origin == "alarm")
        try harness.expectAgreement(after: "a snooze")
        #expect(harness.schedule.heapDueTimes["copy0001"] != nil)

        // Complete ends the lineage: the alarm and its snoozed copy.
        #expect(Set(try harness.run { harness.schedule.complete("alarm", title: "alarm", at: now, done: $0) }.get())
            == ["alarm", "copy0001"])
        try harness.expectAgreement(after: "Complete")

        #expect(try harness.run { harness.schedule.cancel(ids: ["tea", "nothere"], at: now, detail: "", done: $0) }.get() == ["tea"])
        try harness.expectAgreement(after: "Cancel")

        let matched = try harness.run {
            harness.schedule.cancel(matchingKey: "project", value: "chime", at: now, detail: "Matched project=chime.", done: $0)
        }.get()
        #expect(matched == ["call"])
        try harness.expectAgreement(after: "CancelMatching")

        harness.time.advance(660)
        #expect(harness.delivery.server.titles == ["stretch"])
        try harness.expectAgreement(after: "a firing")
        #expect(harness.schedule.heapDueTimes["stretch"] == now.addingTimeInterval(720))

        var network = try #require(try harness.store.notification(id: "office"))
        network.alert.title = "Office, again"
        #expect(try harness.run { harness.schedule.update(network, detail: "Changed title.", at: now, done: $0) }.get())
        try harness.expectAgreement(after: "Update of a place")
        #expect(harness.schedule.watchedPlaceIDs == ["office"])

        #expect(Set(try harness.run { harness.schedule.cancelAll(at: now, detail: "", done: $0) }.get()) == ["stretch", "office"])
        try harness.expectAgreement(after: "CancelAll")
        #expect(harness.schedule.heapEntryCount == 0 && harness.schedule.watchedPlaceIDs.isEmpty)
    }

    /// Where the user is and the crossings are seen by the watch and written by the owner.
    @Test func whatHappensAtAPlaceIsWrittenAndWatchedTogether() throws {
        let harness = try Harness()
        let office = try harness.office()
        try harness.add(office)
        var outside = office
        outside.presence = .outside
        harness.places.onPresence(outside)
        try harness.expectAgreement(after: "a presence")
        #expect(try harness.store.notification(id: "office")?.presence == .outside)

        var fired = outside
        (fired.presence, fired.lastFired, fired.fireCount, fired.state) = (.inside, harness.time.now, 1, .done)
        harness.places.onCrossing(fired, true, HistoryEntry(time: harness.time.now, id: "office", event: .fired, title: "office",
                                                            detail: "Entered the network Office."))
        try harness.expectAgreement(after: "the last crossing")
        #expect(harness.schedule.watchedPlaceIDs.isEmpty)
        let stored = try #require(try harness.store.notification(id: "office"))
        #expect(stored.state == .done && stored.presence == .inside && stored.fireCount == 1)
    }

    // MARK: - Ids taken

    /// Schedule, an import and a snooze all draw a new id through the one loop when theirs
    /// is taken, until one is free; the id drawn is the one in the store and in the heap.
    @Test(arguments: ["Schedule", "ImportICalendar", "a snooze"])
    func aTakenIDIsDrawnAgainUntilOneIsFree(path: String) throws {
        let harness = try Harness()
        try harness.add(try harness.reminder("taken001", in: 60), try harness.reminder("taken002", in: 60))
        var draws = ["taken002", "free0001"]
        var drawn = 0
        harness.schedule.freshID = {
            drawn += 1
            return draws.removeFirst()
        }
        let wanted = try harness.reminder("taken001", in: 90)
        let stored: ScheduledNotification
        switch path {
        case "Schedule":
            stored = try harness.run { harness.schedule.add(wanted, done: $0) }.get()
        case "ImportICalendar":
            let both = [wanted, try harness.reminder("fresh003", in: 120)]
            let imported = try harness.run { harness.schedule.add(both, done: $0) }.get()
            #expect(imported.map(\.id) == ["free0001", "fresh003"])
            stored = imported[0]
        default:
            let now = harness.time.now
            stored = try harness.run { done in
                harness.schedule.addSnoozed(wanted, of: "taken002", event: {
                    HistoryEntry(time: now, id: "taken002", event: .snoozed, title: "taken002", detail: "", copy: $0)
                }, done: done)
            }.get()
            #expect(try harness.store.history(of: "taken002", limit: 1)?.first?.copy == "free0001", "the event names the id drawn")
        }
        #expect(stored.id == "free0001")
        #expect(drawn == 2)
        #expect(try harness.store.notification(id: "free0001")?.nextFire == harness.time.now.addingTimeInterval(90))
        #expect(harness.schedule.heapDueTimes["free0001"] == harness.time.now.addingTimeInterval(90))
        try harness.expectAgreement(after: "\(path) with a taken id")
    }

    // MARK: - Faults

    /// Each change asked of the schedule.
    enum Change: String, CaseIterable, CustomTestStringConvertible {
        case add, importing, update, skip, snooze, cancel, cancelMatching, cancelAll, complete
        var testDescription: String { rawValue }
    }

    /// A schedule to change: a one-shot, a repeat and a place.
    func harnessToChange() throws -> Harness {
        let harness = try Harness()
        try harness.add(try harness.reminder("alarm", in: 3_600, project: "chime"), try harness.reminder("stretch", in: 600, every: .minute),
                        try harness.office())
        return harness
    }

    /// Makes `change`; `body` is the body of what it writes (a long one needs new pages).
    func apply(_ change: Change, to harness: Harness, body: String = "") throws -> Result<Void, StoreError> {
        let schedule = harness.schedule, now = harness.time.now
        switch change {
        case .add:
            let new = try harness.reminder("new00001", in: 60, body: body)
            return try harness.run { schedule.add(new, done: $0) }.map { _ in }
        case .importing:
            // As a calendar read again is: new items, and one there already rewritten in place.
            let items = [try harness.reminder("first001", in: 60), try harness.reminder("second01", in: 120, body: body)]
            var alarm = try #require(try harness.store.notification(id: "alarm"))
            alarm.alert.body = body.isEmpty ? "Read again." : body
            alarm.rule = try FireRule(trigger: .absolute(now.addingTimeInterval(2_400)))
            alarm.nextFire = now.addingTimeInterval(2_400)
            return try harness.run { schedule.merge(new: items, updated: [alarm], detail: "Read again.", at: now, done: $0) }
                .map { #expect($0.updated.map(\.id) == ["alarm"]) }
        case .update:
            var alarm = try #require(try harness.store.notification(id: "alarm"))
            alarm.alert.body = body.isEmpty ? "Changed." : body
            alarm.rule = try FireRule(trigger: .absolute(now.addingTimeInterval(1_800)))
            alarm.nextFire = now.addingTimeInterval(1_800)
            return try harness.run { schedule.update(alarm, detail: "Changed body, when.", at: now, done: $0) }.map { #expect($0) }
        case .skip:
            var stretch = try #require(try harness.store.notification(id: "stretch"))
            stretch.rule.skipped.insert(try #require(stretch.rule.wallClock(ofOccurrence: stretch.nextIndex, systemZone: .utc)))
            let next = try #require(stretch.rule.firstOccurrence(onOrAfter: now, systemZone: .utc))
            (stretch.nextIndex, stretch.nextFire) = (next.index, next.date)
            return try harness.run { schedule.skip(stretch, done: $0) }
        case .snooze:
            let copy = try harness.reminder("copy0001", in: 300, body: body)
            return try harness.run { done in
                schedule.addSnoozed(copy, of: "alarm", event: {
                    HistoryEntry(time: now, id: "alarm", event: .snoozed, title: "alarm", detail: "Again in 5 minutes.", copy: $0)
                }, done: done)
            }.map { _ in }
        case .cancel:
            return try harness.run { schedule.cancel(ids: ["alarm", "office"], at: now, detail: "", done: $0) }.map { _ in }
        case .cancelMatching:
            return try harness.run { schedule.cancel(matchingKey: "project", value: "chime", at: now, detail: "", done: $0) }.map { _ in }
        case .cancelAll:
            return try harness.run { schedule.cancelAll(at: now, detail: "", done: $0) }.map { _ in }
        case .complete:
            return try harness.run { schedule.complete("alarm", title: "alarm", at: now, done: $0) }.map { _ in }
        }
    }

    /// A store that refuses the write leaves the store, the heap and the watch as they
    /// were, and says so; once it writes again, the same change goes through whole.
    @Test(arguments: Change.allCases)
    func aRefusedWriteChangesNeitherHalf(change: Change) throws {
        let harness = try harnessToChange()
        let before = try harness.state()
        try harness.refuseWrites(true)
        guard case .failure = try apply(change, to: harness) else {
            Issue.record("\(change) went through a store that refuses writes")
            return
        }
        try harness.refuseWrites(false)
        #expect(try harness.state() == before)
        try harness.expectAgreement(after: "a refused \(change)")

        try apply(change, to: harness).get()
        #expect(try harness.state() != before)
        try harness.expectAgreement(after: "\(change)")
    }

    /// On a full disk, a change that needs room is refused, naming the full disk, and
    /// leaves both halves as they were (an import whole: none of it).
    @Test(arguments: [Change.add, .importing, .update, .snooze])
    func aFullDiskChangesNeitherHalf(change: Change) throws {
        let harness = try harnessToChange()
        let before = try harness.state()
        let long = String(repeating: "Long enough to need pages of its own. ", count: 2_000)
        try harness.fillDisk()
        let result = try apply(change, to: harness, body: long)
        guard case .failure(let error) = result else {
            Issue.record("\(change) went through a full disk")
            return
        }
        #expect("\(error)".contains("full"), "\(error)")
        #expect(try harness.state() == before)
        try harness.expectAgreement(after: "\(change) on a full disk")

        try harness.freeDisk()
        try apply(change, to: harness, body: long).get()
        #expect(try harness.state() != before)
        try harness.expectAgreement(after: "\(change) with room again")
    }

    /// A firing cannot be refused: the heap moves on whether or not the store records it,
    /// and the row keeps the time it had, so a restart shows it once more (never not at all).
    @Test func aFiringTheStoreCannotRecordMovesOnAndFiresAgainAfterARestart() throws {
        let harness = try Harness()
        try harness.add(try harness.reminder("pill", in: 10))
        try harness.refuseWrites(true)
        harness.time.advance(10)
        harness.delivery.commits.commit()
        try harness.refuseWrites(false)
        #expect(harness.delivery.server.titles == ["pill"])
        #expect(harness.delivery.log.contains("Cannot record firings"))
        #expect(harness.schedule.heapDueTimes.isEmpty)
        #expect(try harness.store.dueTimes().map(\.id) == ["pill"])

        let restarted = Schedule(store: harness.store, commits: harness.delivery.commits, logger: harness.delivery.log.logger)
        try restarted.load()
        #expect(restarted.heapDueTimes == ["pill": harness.time.now])
    }
}
