import ChimeCore
import DBus
import EventLoop
import Foundation
import Glibc
import Testing
@testable import ChimeDaemon

/// Scheduling in-process: what is due, late, missed, coalesced or dropped, on a clock
/// moved by hand and a fake server (SchedulingTests check it against the real ones).
struct FireTimerTests {
    /// A fire timer on the delivery harness; notifications go in as `Schedule` puts them.
    final class Harness {
        let delivery: DeliveryHarness
        let schedule: Schedule
        let fireTimer: FireTimer
        var time: FakeTime { delivery.time }
        var server: FakeServer { delivery.server }

        init() throws {
            delivery = try DeliveryHarness()
            schedule = Schedule(store: delivery.store, commits: delivery.commits, logger: delivery.log.logger)
            fireTimer = FireTimer(store: delivery.store, schedule: schedule, presenter: delivery.presenter, commits: delivery.commits,
                                  time: delivery.time, logger: delivery.log.logger)
        }

        /// A notification due at `due`: with `started`, scheduled as chimed does; without, in
        /// the store before chimed starts.
        @discardableResult
        func add(_ title: String, due: Date, every unit: RepeatUnit? = nil, lateLimit: TimeInterval? = nil,
                 started: Bool = true) throws -> ScheduledNotification {
            let rule = try FireRule(trigger: .absolute(due), recurrence: try unit.map { try Recurrence(unit: $0, count: 1) })
            let notification = ScheduledNotification(id: title, alert: Alert(title: title), rule: rule, lateLimit: lateLimit,
                                                     created: time.now, nextIndex: 0, nextFire: due)
            try put(notification, started: started)
            return notification
        }

        /// A notification made from Schedule's fields (`when`, `repeat`, `late`) as chimed
        /// makes one now: with `started`, scheduled as chimed does; without, in the store
        /// before chimed starts.
        @discardableResult
        func schedule(_ title: String, when: String, repeat unit: String? = nil, late: Bool = false,
                      started: Bool = true) throws -> ScheduledNotification {
            var fields = ScheduleFields()
            fields.when = when
            fields.repeatUnit = unit
            fields.late = late
            let rule = try fields.rule(now: time.now, systemZone: .utc)
            let start = try fields.start(of: rule, now: time.now, systemZone: .utc)
            let notification = ScheduledNotification(id: title, alert: Alert(title: title), rule: rule, lateLimit: nil,
                                                     created: time.now, nextIndex: start?.index ?? 0, nextFire: start?.date)
            try put(notification, started: started)
            return notification
        }

        private func put(_ notification: ScheduledNotification, started: Bool) throws {
            guard started else {
                _ = try delivery.store.write { db in try delivery.store.insert(notification, in: db) }
                return
            }
            var result: Result<ScheduledNotification, StoreError>?
            schedule.add(notification) { result = $0 }
            delivery.commits.commit()
            #expect(try result?.get().id == notification.id)
        }

        /// Cancels `ids`, as Cancel does.
        func cancel(_ ids: [String]) throws {
            var result: Result<[String], StoreError>?
            schedule.cancel(ids: ids, at: time.now, detail: "") { result = $0 }
            delivery.commits.commit()
            _ = try result?.get()
        }

        /// The `x-chime-late-seconds` hint of Notify request `index`.
        func lateSeconds(_ index: Int) -> Value? {
            server.requests[index].request.hints.first { $0.0 == "x-chime-late-seconds" }?.1
        }
    }

    @Test func aReminderFiresAtItsTimeAndNotBefore() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        try harness.add("Tea", due: harness.time.now.addingTimeInterval(10))
        #expect(harness.time.alarm.armedAt == harness.time.now.addingTimeInterval(10), "one alarm, at the due time")
        harness.time.advance(9.9)
        #expect(harness.server.requests.isEmpty)
        harness.time.advance(0.1)
        #expect(harness.server.titles == ["Tea"])
        #expect(try harness.delivery.history() == ["fired Tea"])
        #expect(harness.time.alarm.armedAt == nil, "nothing more to wait for")
    }

    /// A schedule with thousands due at one instant (a million, in make bench) must not
    /// have them all decoded and held from the arming on: start-up read each of them.
    /// The first ones to fire are read ahead; the rest as they fire.
    @Test func manyDueAtOneInstantAreReadAheadOnlyInPart() throws {
        let harness = try Harness()
        let due = harness.time.now.addingTimeInterval(10)
        let ids = (0..<200).map { "n" + String(1000 + $0).dropFirst() }
        for id in ids.reversed() { try harness.add(id, due: due, started: false) }
        try harness.fireTimer.start()
        #expect(harness.fireTimer.readAheadIDs == Array(ids.prefix(FireTimer.readAhead)))
        harness.time.advance(10)
        #expect(try harness.delivery.history().count == 200)
        #expect(harness.fireTimer.readAheadIDs.isEmpty)
    }

    /// A cancel of nearly everything leaves stale heap entries; they are dropped in one
    /// rebuild rather than popped one by one at the next arming (seconds for a million).
    @Test func cancellingMostOfTheScheduleShrinksTheHeapAndTheRestStillFires() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        let start = harness.time.now
        let ids = (0..<300).map { "c" + String(1000 + $0).dropFirst() }
        for (index, id) in ids.enumerated() { try harness.add(id, due: start.addingTimeInterval(Double(10 + index))) }
        try harness.cancel(Array(ids.dropFirst(5)))
        #expect(harness.schedule.heapEntryCount == 5)
        harness.time.advance(400)
        #expect(Set(harness.server.titles) == Set(ids.prefix(5)))
    }

    @Test func forgettingEverythingDisarmsAndWhatIsAddedAfterFires() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        let start = harness.time.now
        for index in 0..<100 { try harness.add("gone \(index)", due: start.addingTimeInterval(Double(10 + index))) }
        harness.schedule.cancelAll(at: harness.time.now, detail: "") { _ in }
        harness.delivery.commits.commit()
        #expect(harness.schedule.heapEntryCount == 0 && harness.schedule.upcoming.count == 0)
        try harness.add("after", due: start.addingTimeInterval(50))
        harness.time.advance(400)
        #expect(harness.server.titles == ["after"])
    }

    @Test func aRepeatKeepsItsCadence() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        let start = harness.time.now.addingTimeInterval(1)
        try harness.add("Stretch", due: start, every: .minute)
        harness.time.advance(1)
        harness.server.showAll()
        #expect(harness.time.alarm.armedAt == start.addingTimeInterval(60))
        harness.time.advance(60)
        #expect(harness.server.titles == ["Stretch", "Stretch"])
    }

    @Test func missedWhileStoppedFiresOnceMarkedLate() throws {
        let harness = try Harness()
        try harness.add("Missed", due: harness.time.now.addingTimeInterval(-300), started: false)
        try harness.fireTimer.start()
        #expect(harness.server.titles == ["Missed"])
        #expect(harness.server.requests.first?.request.body == "Due 5 min ago.")
        #expect(try harness.delivery.history() == ["late Missed"])
    }

    /// "Late" is for occurrences missed while chimed was stopped or the server away: a
    /// repeat begun in the past was missed by nobody, so it starts at its next occurrence.
    @Test func aRepeatBegunInThePastFiresNothingNowAndItsNextOnTime() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        let next = harness.time.now.addingTimeInterval(3_600)
        try harness.schedule("Weekly", when: iso(next.addingTimeInterval(-28 * 86_400)), repeat: "week")
        #expect(harness.server.requests.isEmpty)
        #expect(harness.time.alarm.armedAt == next)
        harness.time.advance(3_600)
        #expect(harness.server.titles == ["Weekly"])
        #expect(harness.server.requests.first?.request.body == "", "on time: no late mark")
        #expect(harness.lateSeconds(0) == nil)
        #expect(try harness.delivery.history() == ["fired Weekly"])
    }

    /// Four yearly birthdays from 1960, as an import makes them: no summary of missed ones,
    /// since nothing was missed, also when chimed starts after they were stored.
    @Test func birthdaysFromLongAgoMakeNoSummary() throws {
        let harness = try Harness()
        for (index, day) in ["1960-04-12", "1971-02-01", "1985-12-24", "1990-07-30"].enumerated() {
            try harness.schedule("Birthday \(index)", when: day + "T00:00:00Z", repeat: "year", started: false)
        }
        try harness.fireTimer.start()
        #expect(harness.server.requests.isEmpty)
        #expect(try harness.delivery.history().isEmpty)
    }

    /// Missed for three days while chimed was stopped: late, by three days, in the popup,
    /// the hint and the history alike.
    @Test func aGenuinelyMissedOneSaysHowLateInWordsAndTheHintInSeconds() throws {
        let harness = try Harness()
        try harness.schedule("Missed", when: "in 1h", started: false)
        harness.time.advance(3 * 86_400 + 3_600)
        try harness.fireTimer.start()
        #expect(harness.server.requests.first?.request.body == "Due 3 days ago.")
        #expect(harness.lateSeconds(0) == .int32(259_200))
        harness.delivery.commits.commit()
        let event = try #require(try harness.delivery.store.history(limit: 1).first)
        #expect(event.event == .late && event.detail == "Due 3 days ago.", "\(event)")
    }

    /// A daily reminder missed for a week fires once, late by its latest missed occurrence,
    /// and the popup says the same delay as the history.
    @Test func aRepeatMissedForAWeekSaysTheSameDelayInThePopupAndTheHistory() throws {
        let harness = try Harness()
        try harness.add("Daily", due: harness.time.now.addingTimeInterval(-7 * 86_400 - 300), every: .day, started: false)
        try harness.fireTimer.start()
        #expect(harness.server.requests.first?.request.body == "Due 5 min ago.")
        #expect(harness.lateSeconds(0) == .int32(300))
        harness.delivery.commits.commit()
        #expect(try harness.delivery.store.history(limit: 1).first?.detail == "Due 5 min ago.")
    }

    /// A past time asked for (late) fires at once, saying how long ago in years.
    @Test func aPastTimeAskedForFiresAtOnceLateInYears() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        try harness.schedule("Typo", when: iso(harness.time.now.addingTimeInterval(-2_523 * 86_400)), late: true)
        harness.time.advance(0)
        #expect(harness.server.requests.first?.request.body == "Due 6 years ago.")
        #expect(harness.lateSeconds(0) == .int32(2_523 * 86_400))
        #expect(try harness.delivery.history() == ["late Typo"])
    }

    @Test func manyMissedArriveAsOneSummary() throws {
        let harness = try Harness()
        for index in 0..<5 { try harness.add("R\(index)", due: harness.time.now.addingTimeInterval(-60), started: false) }
        try harness.fireTimer.start()
        #expect(harness.server.titles == ["5 reminders while you were away"])
        #expect(harness.delivery.presenter.waiting.isEmpty)
    }

    @Test func pastItsLateLimitItIsDropped() throws {
        let harness = try Harness()
        try harness.add("Stale", due: harness.time.now.addingTimeInterval(-3600), lateLimit: 600, started: false)
        try harness.fireTimer.start()
        #expect(harness.server.requests.isEmpty)
        #expect(try harness.delivery.history() == ["dropped Stale"])
    }

    @Test func aRefusedAlarmFallsBackToATimeout() throws {
        let harness = try Harness()
        harness.time.alarm.refuses = true
        try harness.fireTimer.start()
        try harness.add("Still fires", due: harness.time.now.addingTimeInterval(2))
        harness.time.advance(2)
        #expect(harness.server.titles == ["Still fires"])
        #expect(harness.delivery.log.contains("Cannot arm the timer"))
    }

    @Test func aCancelledReminderDoesNotFire() throws {
        let harness = try Harness()
        try harness.fireTimer.start()
        try harness.add("Gone", due: harness.time.now.addingTimeInterval(5))
        try harness.cancel(["Gone"])
        harness.time.advance(10)
        #expect(harness.server.requests.isEmpty)
        #expect(harness.time.alarm.armedAt == nil)
    }

    /// The kernel's alarm takes any date: one before 1970, with a fraction, goes off at once.
    @Test func theKernelAlarmTakesAnyDate() throws {
        let loop = EventLoop()
        var events: [WallClockEvent] = []
        let alarm: Alarm = try LoopTimekeeper(loop: loop).makeAlarm { events.append($0) }
        try alarm.arm(at: Date(timeIntervalSince1970: -0.5))
        try loop.runOnce(timeoutMilliseconds: 5_000)
        #expect(events == [.expired])
    }
}

/// `date` as ISO 8601 in UTC, as `when` takes an instant.
private func iso(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
}
