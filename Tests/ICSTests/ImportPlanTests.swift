import DBus
import ICS
import Testing

/// What a component asks of Schedule once chimed has said when each alarm first fires:
/// every alarm checked before any is asked for, repeats in the form chimed takes.
struct ImportPlanTests {
    func daily(_ lines: [String] = []) throws -> ImportComponent {
        try component(calendar(event("d", "Daily", ["DTSTART:20300107T170000Z"] + lines)))
    }

    /// The whole rule, in libical's order of its parts, as `chime add --rrule` gives it.
    @Test func aRuleMoreThanAUnitSaysIsAskedForWholeAsAnRRULE() throws {
        let chimed = FirstFire()
        let plan = try daily(["RRULE:FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE"])
        let request = try #require(try requests(plan, chimed).first)
        #expect(request["rrule"] == .string("FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE"))
        #expect(request["repeat"] == nil && request["every"] == nil)
        #expect(!chimed.asked.isEmpty && chimed.asked.allSatisfy { $0.options["rrule"] == "FREQ=WEEKLY;COUNT=10;BYDAY=MO,WE" })
    }

    /// 7 January 2030 is a Monday, the 7th of the month, in January: a BYDAY, BYMONTHDAY or
    /// BYMONTH that names only that is the plain repeat.
    @Test(arguments: [
        ("RRULE:FREQ=DAILY", "day", 1), ("RRULE:FREQ=DAILY;INTERVAL=3", "day", 3), ("RRULE:FREQ=MINUTELY;INTERVAL=30", "minute", 30),
        ("RRULE:FREQ=HOURLY", "hour", 1), ("RRULE:FREQ=WEEKLY;BYDAY=MO", "week", 1), ("RRULE:FREQ=WEEKLY;INTERVAL=2", "week", 2),
    ])
    func aRuleAUnitAndACountSayIsAskedForAsThem(_ rule: String, _ unit: String, _ every: UInt32) throws {
        let chimed = FirstFire()
        chimed.takesRRULE = false
        let request = try #require(try requests(try daily([rule]), chimed).first)
        #expect(request["repeat"] == .string(unit))
        #expect(request["every"] == .uint32(every), "every is a D-Bus u, as Schedule takes it")
    }

    /// A monthly or yearly repeat stays an RRULE, whose month ends are RFC 5545's (a month
    /// without the day is left out), not `repeat`'s (its last day); parts that only name
    /// the start's own day and month are left out, as chimed takes no BYMONTHDAY but -1.
    @Test(arguments: [
        ("RRULE:FREQ=MONTHLY", "FREQ=MONTHLY"), ("RRULE:FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=7", "FREQ=MONTHLY;INTERVAL=3"),
        ("RRULE:FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=7", "FREQ=YEARLY"), ("RRULE:FREQ=YEARLY;INTERVAL=4", "FREQ=YEARLY;INTERVAL=4"),
    ])
    func aMonthlyOrYearlyRuleIsAskedForAsAnRRULE(_ rule: String, _ text: String) throws {
        let request = try #require(try requests(try daily([rule])).first)
        #expect(request["rrule"] == .string(text))
        #expect(request["repeat"] == nil && request["every"] == nil)
    }

    /// RFC 7529's RSCALE goes to chimed with the rule, which takes GREGORIAN with its SKIP
    /// and refuses another by name: it is never dropped, so never read as Gregorian.
    @Test(arguments: [
        ("RRULE:FREQ=MONTHLY;RSCALE=GREGORIAN;SKIP=BACKWARD", "RSCALE=GREGORIAN;FREQ=MONTHLY;SKIP=BACKWARD"),
        ("RRULE:FREQ=YEARLY;RSCALE=CHINESE", "RSCALE=CHINESE;FREQ=YEARLY"),
        ("RRULE:FREQ=DAILY;RSCALE=HEBREW", "RSCALE=HEBREW;FREQ=DAILY"),
    ])
    func aCalendarScaleGoesToChimedWithTheRule(_ rule: String, _ text: String) throws {
        let request = try #require(try requests(try daily([rule])).first)
        #expect(request["rrule"] == .string(text))
        #expect(request["repeat"] == nil)
    }

    @Test(arguments: [
        "RRULE:FREQ=WEEKLY;BYDAY=MO,WE", "RRULE:FREQ=WEEKLY;BYDAY=TU", "RRULE:FREQ=DAILY;COUNT=5",
        "RRULE:FREQ=DAILY;UNTIL=20300301T000000Z", "RRULE:FREQ=MONTHLY;BYDAY=1MO", "RRULE:FREQ=MONTHLY;BYMONTHDAY=8",
        "RRULE:FREQ=YEARLY;BYMONTH=2", "RRULE:FREQ=MONTHLY;BYDAY=MO;BYSETPOS=-1", "RRULE:FREQ=DAILY;BYHOUR=9,17",
        "RRULE:FREQ=YEARLY;BYWEEKNO=20", "RRULE:FREQ=YEARLY;BYYEARDAY=100",
    ])
    func aRuleThatSaysMoreThanAUnitIsAskedForAsItIsAndRefusedOnlyInChimedsWords(_ rule: String) throws {
        let text = String(rule.dropFirst("RRULE:".count))
        #expect(try requests(try daily([rule])).first?["rrule"] == .string(text))
        let chimed = FirstFire()
        chimed.takesRRULE = false
        #expect(outcome(try daily([rule]), chimed) == "refused: rrule: '\(text)' has a part Chime does not take")
    }

    /// Each EXDATE value (several may share a line) in its own kind of time; an all-day
    /// item's on the start's clock at midnight.
    @Test(arguments: [
        (["DTSTART;TZID=Europe/Berlin:20300101T100000", "RRULE:FREQ=DAILY", "EXDATE;TZID=Europe/Berlin:20300102T100000,20300104T100000",
          "EXDATE:20300105T090000Z"],
         ["2030-01-02T10:00:00[Europe/Berlin]", "2030-01-04T10:00:00[Europe/Berlin]", "2030-01-05T09:00:00+00:00"]),
        (["DTSTART;VALUE=DATE:20300101", "RRULE:FREQ=YEARLY", "EXDATE;VALUE=DATE:20310101"], ["2031-01-01T00:00:00"]),
        (["DTSTART:20300101T100000Z", "EXDATE:20300102T100000Z"], []),
    ])
    func theOccurrencesAnEXDATELeavesOutAreReadForTheRepeat(_ lines: [String], _ skipped: [String]) throws {
        let plan = try component(calendar(event("x", "Exception", lines))).plan.get()
        #expect(plan.skipped == skipped)
    }

    @Test func alarmsThatHavePassedAreLeftOutAndWhenAllHaveTheComponentIsSkipped() throws {
        let alarms = ["BEGIN:VALARM", "TRIGGER:-P1D", "END:VALARM", "BEGIN:VALARM", "TRIGGER:-PT1H", "END:VALARM"]
        let plan = try daily(alarms)
        let chimed = FirstFire()
        chimed.past = ["2030-01-06T17:00:00+00:00"]
        #expect(try whens(plan, chimed) == ["2030-01-07T16:00:00+00:00"])
        chimed.past.insert("2030-01-07T16:00:00+00:00")
        #expect(outcome(plan, chimed) == "skipped: its time is past")
    }

    /// A component is scheduled whole or not at all: chimed refusing one alarm's time
    /// refuses them all, with chimed's sentence.
    @Test func chimedRefusingOneAlarmRefusesTheComponent() throws {
        let plan = try daily(["BEGIN:VALARM", "TRIGGER:-PT1H", "END:VALARM", "BEGIN:VALARM", "TRIGGER:PT1H", "END:VALARM"])
        let chimed = FirstFire()
        chimed.refusing = ["2030-01-07T18:00:00+00:00": "when: no such time"]
        #expect(outcome(plan, chimed) == "refused: when: no such time")
        #expect(chimed.asked.map(\.when) == ["2030-01-07T16:00:00+00:00", "2030-01-07T18:00:00+00:00"])
    }

    /// A date libical reads but no calendar has (month 13, 30 February) reaches chimed as
    /// written, and chimed's refusal of it refuses the component: nothing is moved to a
    /// nearby day.
    @Test(arguments: [("20301345T100000Z", "2030-13-45T10:00:00+00:00"), ("20300230T100000Z", "2030-02-30T10:00:00+00:00")])
    func anImpossibleDateIsChimedsToRefuse(_ start: String, _ when: String) throws {
        let plan = try component(calendar(event("bad", "Bad date", ["DTSTART:" + start])))
        #expect(try whens(plan) == [when])
        let chimed = FirstFire()
        chimed.refusing = [when: "when: '\(when)' is no date"]
        #expect(outcome(plan, chimed) == "refused: when: '\(when)' is no date")
    }

    /// An alarm is counted from its item's start by libical, which would carry month 13
    /// into the next year: an impossible start with alarms is refused here, by name.
    @Test(arguments: [("20301345T100000Z", "month 13 is out of range"), ("20300230T100000Z", "day 30 is out of range"),
                      ("20300430T250000Z", "25:00:00 is not a time of day")])
    func anImpossibleStartWithAlarmsIsRefusedByName(_ start: String, _ problem: String) throws {
        let text = calendar(event("bad", "Bad date", ["DTSTART:" + start, "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M",
                                                     "END:VALARM"]))
        let refusal = try #require(CalendarText.components(of: text)?.first.map { component -> String? in
            if case .failure(.refused(let reason)) = component.plan { reason } else { nil }
        })
        #expect(refusal?.hasPrefix("DTSTART ") == true && refusal?.hasSuffix(problem) == true, "\(String(describing: refusal))")
    }

    // MARK: - Snoozes (RFC 9074 7, Thunderbird)

    static let snoozed = ["BEGIN:VALARM", "UID:a1", "ACTION:DISPLAY", "TRIGGER:-PT15M", "ACKNOWLEDGED:20300107T164500Z", "END:VALARM",
                          "BEGIN:VALARM", "UID:s1", "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20300107T171500Z",
                          "RELATED-TO;RELTYPE=SNOOZE:a1", "END:VALARM", "X-MOZ-SNOOZE-TIME:20300107T171500Z"]

    /// Chime writes both a snooze alarm and Thunderbird's property: read back, they are one
    /// alarm, the snooze's; the alarm it snoozed was acknowledged.
    @Test func aSnoozeAlarmAndThunderbirdsSnoozeTimeAreOneAlarm() throws {
        let plan = try component(calendar(event("e", "Call", ["DTSTART:20300107T170000Z"] + Self.snoozed)))
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        #expect(asked.map(\.alarm) == ["s1"])
        #expect(asked.first.map { Dictionary($0.request, uniquingKeysWith: { first, _ in first })["when"] } == .string("2030-01-07T17:15:00+00:00"))
    }

    /// On a repeating item the snooze rings once; the series goes on, its alarm not over.
    @Test func aSnoozeOfARepeatingItemRingsOnce() throws {
        let plan = try daily(["RRULE:FREQ=DAILY"] + Self.snoozed)
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        #expect(asked.map(\.alarm) == ["a1", "s1"])
        let rules = asked.map { request in request.request.first { $0.0 == "rrule" || $0.0 == "repeat" } != nil }
        #expect(rules == [true, false])
    }

    /// Thunderbird snoozes an occurrence of a repeating item with X-MOZ-SNOOZE-TIME-<µs>.
    @Test func thunderbirdsSnoozeOfAnOccurrenceRingsOnce() throws {
        let plan = try daily(["RRULE:FREQ=DAILY", "X-MOZ-SNOOZE-TIME-1894035600000000:20300108T171000Z",
                              "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "END:VALARM"])
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        #expect(asked.map(\.alarm) == ["#1", "X-MOZ-SNOOZE-TIME-1894035600000000"])
        #expect(asked.last?.request.contains { $0.0 == "rrule" || $0.0 == "repeat" } == false)
    }

    // MARK: - RDATE (RFC 5545 3.8.5.2)

    /// Each RDATE is one more occurrence, rung once, its alarms as far ahead as the first's;
    /// one an EXDATE names is left out; an absolute alarm rings once, for the item.
    @Test func eachRDateIsOneMoreOccurrenceWithItsAlarms() throws {
        let plan = try component(calendar(event("r", "Extra", [
            "DTSTART;TZID=Europe/Berlin:20300301T100000", "RDATE;TZID=Europe/Berlin:20300401T100000,20300501T100000",
            "EXDATE;TZID=Europe/Berlin:20300501T100000", "RDATE;VALUE=PERIOD:20300601T080000Z/PT1H",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT15M", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:20300228T090000Z", "END:VALARM",
        ])))
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        let whens = asked.map { Dictionary($0.request, uniquingKeysWith: { first, _ in first })["when"]?.stringValue ?? "" }
        // The spring change (31 March) falls between: the wall-clock time stays 09:45 in Berlin.
        #expect(whens == ["2030-03-01T09:45:00[Europe/Berlin]", "2030-02-28T09:00:00+00:00", "2030-04-01T09:45:00[Europe/Berlin]",
                          "2030-06-01T09:45:00[Europe/Berlin]"], "\(whens)")
        #expect(asked.map(\.alarm) == ["#1", "#2", "#1|RDATE:20300401T100000", "#1|RDATE:20300601T080000Z/PT1H"])
    }

    /// An item without alarms rings at each RDATE's start, as at its own.
    @Test func anItemWithoutAlarmsRingsAtEachRDate() throws {
        let plan = try component(calendar(event("r", "Extra", ["DTSTART:20300301T100000Z", "RDATE:20300302T100000Z"])))
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        #expect(asked.map(\.alarm) == ["", "|RDATE:20300302T100000Z"])
        #expect(asked.last.map { Dictionary($0.request, uniquingKeysWith: { first, _ in first })["when"] } == .string("2030-03-02T10:00:00+00:00"))
    }

    // MARK: - Places (RFC 9074 8, Apple Reminders)

    static func region(_ request: [String: Value]) -> [String: Value] {
        Dictionary(request["region"]?.stringKeyedEntries?.map { ($0.key, $0.value.unwrapped) } ?? [], uniquingKeysWith: { first, _ in first })
    }

    /// PROXIMITY and a VLOCATION whose URL is a geo URI: a reminder at that place, beside
    /// the item's time alarm; a CONNECT alarm (a car's Bluetooth) is left out with a note.
    @Test func aLocationAlarmIsAReminderAtThatPlace() throws {
        let plan = try component(calendar(event("p", "Pick up the parcel", [
            "DTSTART:20300301T100000Z",
            "BEGIN:VALARM", "UID:time", "ACTION:DISPLAY", "TRIGGER:-PT15M", "END:VALARM",
            "BEGIN:VALARM", "UID:shop", "ACTION:DISPLAY", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z", "PROXIMITY:ARRIVE",
            "BEGIN:VLOCATION", "UID:loc", "NAME:Post office", "URL:geo:48.2082,16.3738;u=150", "END:VLOCATION", "END:VALARM",
            "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT5M", "PROXIMITY:CONNECT", "END:VALARM",
        ])))
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        #expect(asked.map(\.alarm) == ["time", "shop"])
        let place = Self.region(Dictionary(asked[1].request, uniquingKeysWith: { first, _ in first }))
        #expect(place["latitude"] == .double(48.2082) && place["longitude"] == .double(16.3738) && place["radius"] == .double(150))
        #expect(place["identifier"] == .string("Post office") && place["notifyOnEntry"] == .bool(true) && place["notifyOnExit"] == .bool(false))
        #expect(!asked[1].request.contains { $0.0 == "when" })
        #expect(try plan.plan.get().notes == ["its PROXIMITY=CONNECT alarms are not ones Chime shows"])
    }

    /// Apple Reminders' form: a task with no time, X-APPLE-PROXIMITY and the place in
    /// X-APPLE-STRUCTURED-LOCATION, its radius in X-APPLE-RADIUS.
    @Test func appleRemindersLocationReminderIsReadToo() throws {
        let plan = try component(calendar([
            "BEGIN:VTODO", "UID:apple-1", "DTSTAMP:20260525T083512Z", "SUMMARY:Water the garden", "STATUS:NEEDS-ACTION",
            "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER;VALUE=DATE-TIME:19760401T005545Z",
            "UID:35D25525", "X-APPLE-PROXIMITY:DEPART",
            "X-APPLE-STRUCTURED-LOCATION;VALUE=URI;X-ADDRESS=Main St 1;X-APPLE-RADIUS=70;X-APPLE-REFERENCEFRAME=1;X-TITLE=Home:geo:51.69",
            " 1450,5.313180", "X-WR-ALARMUID:35D25525", "END:VALARM", "END:VTODO",
        ]))
        let asked = try plan.plan.get().requests(firstFire: FirstFire().answer)
        #expect(asked.map(\.alarm) == ["35D25525"])
        let place = Self.region(Dictionary(asked[0].request, uniquingKeysWith: { first, _ in first }))
        #expect(place["latitude"] == .double(51.691450) && place["longitude"] == .double(5.313180) && place["radius"] == .double(70))
        #expect(place["identifier"] == .string("Home") && place["notifyOnExit"] == .bool(true) && place["notifyOnEntry"] == .bool(false))
    }

    /// One item of a synced calendar cannot flood the schedule: past 500 reminders it is refused.
    @Test func anItemAskingForTooManyRemindersIsRefused() throws {
        let alarms = (0..<11).flatMap { ["BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER:-PT\($0)M", "END:VALARM"] }
        let rdates = (1...50).map { "RDATE:20300301T\(String(format: "%02d", $0 % 24))\(String(format: "%02d", $0))00Z" }
        let plan = try component(calendar(event("f", "Flood", ["DTSTART:20300301T100000Z"] + rdates + alarms)))
        #expect(outcome(plan) == "refused: it asks for 561 reminders (11 alarms, 50 RDATEs); Chime takes at most 500 of one item")
    }

    @Test func anotherErrorOfFirstFireIsPassedOn() throws {
        struct Broken: Error, Equatable {}
        #expect(throws: Broken()) { try daily().plan.get().requests { _, _, _ in throw Broken() } }
    }

    /// The calendar a rule counts in goes with every question to chimed; in the request it
    /// is the X-CHIME-CALENDAR field, once.
    @Test func theCalendarGoesWithEveryQuestionAndOnceInTheRequest() throws {
        let chimed = FirstFire()
        chimed.takesRRULE = false
        let plan = try daily(["RRULE:FREQ=WEEKLY", "X-CHIME-CALENDAR:hebrew"])
        let requests = try plan.plan.get().requests(firstFire: chimed.answer)
        #expect(chimed.asked.allSatisfy { $0.options["calendar"] == "hebrew" }, "\(chimed.asked)")
        #expect(requests.first?.request.filter { $0.0 == "calendar" }.count == 1)
        #expect(requests.first?.request.first?.0 == "when", "when comes first")
    }

    @Test func eachRequestComesWithTheFirstFireTimeChimedAnswered() throws {
        let plan = try daily(["BEGIN:VALARM", "TRIGGER:-PT1H", "END:VALARM", "BEGIN:VALARM", "TRIGGER:-PT2H", "END:VALARM"])
        let requests = try plan.plan.get().requests { when, _, _ in when.hasPrefix("2030-01-07T16") ? 16 : 15 }
        #expect(requests.map(\.next) == [16, 15])
        #expect(try plan.plan.get().title == "Daily")
    }

    @Test func aRefusalIsOneSentenceNamingTheComponent() {
        let label = #"VEVENT "Gym" (UID g, line 3)"#
        #expect(ImportRefusal.refused("it has no DTSTART").sentence(label) == #"VEVENT "Gym" (UID g, line 3): not imported: it has no DTSTART."#)
        #expect(ImportRefusal.refused("chimed's own sentence.").sentence(label).hasSuffix(": not imported: chimed's own sentence."))
        #expect(ImportRefusal.skipped("its time is past").sentence(label) == #"VEVENT "Gym" (UID g, line 3): skipped: its time is past."#)
    }
}
