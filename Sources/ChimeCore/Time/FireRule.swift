import FoundationEssentials

/// When a notification fires: the first occurrence and how it repeats.
///
/// The rules, each pinned by `FireRuleTests`:
///
/// - **Frames.** An absolute trigger repeats by calendar arithmetic in UTC, so "every day"
///   is exactly 86 400 s: a countdown, repeated. A floating trigger repeats on the wall clock
///   of the system zone passed in (09:00 stays 09:00 after a move from Berlin to Tokyo); a
///   zoned trigger on the wall clock of its named zone (09:00 New York stays 09:00 New York
///   across daylight-saving changes and wherever the machine is).
/// - **The n-th occurrence** is the first one plus `n × count` units, added in one step on
///   the wall-clock time taken as if it were UTC, in the rule's calendar for months and
///   years (``CalendarSteps``: the Gregorian calendar is proleptic). It is never reached
///   by repeated addition, so month ends and leap days stay put.
/// - **Month ends** (``Recurrence/skip``): a `repeat` takes a short month's last day, as
///   iOS does: the 31st monthly is Feb 28 (29 in leap years), Mar 31, Apr 30, May 31; Feb 29
///   yearly is Feb 28 in common years. An RRULE leaves such months out and does not count
///   them (RFC 5545 3.3.10): the 31st monthly is Jan 31, Mar 31, May 31; Feb 29 yearly
///   comes in leap years only. The n-th occurrence is then the n-th step that exists
///   (``ExistingSteps``). RFC 7529's SKIP=FORWARD takes the next month's first day.
/// - **A lead** (``lead``): an alarm ahead of a repeating item is counted from each of the
///   item's occurrences, as RFC 5545 3.8.6.3 counts a TRIGGER from the start of each, not
///   repeated on the alarm's own wall clock: the 15-minute alarm of a 03:10 New York item
///   rings at 01:55 EST on the day clocks spring forward, 15 minutes before 03:10 EDT.
/// - **Repeated wall-clock times** (clocks fall back) are the earlier instant (RFC 5545).
///   A minute or hour repeat therefore has no occurrences in the second pass of the
///   repeated hour.
/// - **Skipped wall-clock times** (clocks spring forward) are read with the offset in force
///   before the jump, so they land as far after it as they were meant to be (RFC 5545):
///   02:30 on a one-hour gap is 03:30, 02:15 in Lord Howe's half-hour gap is 02:45, and
///   09:00 on Samoa's skipped 30 December 2011 is 09:00 on the 31st. Minute and hour
///   repeats are the exception: their occurrences inside a gap fire at the moment the
///   clocks jump (03:00), so that they stay in order and fire once, as missed ones do.
///   Occurrences may thus share an instant; they never go backwards.
/// - **The past** is the rule's own: occurrences before now exist and are counted from.
///   Where a newly scheduled rule starts among them is ``FirstFire``'s decision.
///
/// A rule whose zone or calendar a caller later set to an unknown name has no occurrences,
/// nor has a place trigger: crossings fire it (``Place``), outside the heap of due times.
public struct FireRule: Hashable, Sendable {
    /// The first occurrence.
    public var trigger: Trigger
    /// How it repeats; nil fires once.
    public var recurrence: Recurrence?
    /// The calendar's Swift name (``calendars``), such as `gregorian` or `hebrew`.
    public var calendar: String
    /// The occurrences skipped without ending the series (RFC 5545 EXDATE), as wall-clock
    /// times on the rule's own clock (UTC for an instant), so that they stay put when the
    /// rule around them changes and fit no occurrence they were not.
    public var skipped: Set<LocalDateTime> = []
    /// Seconds from each occurrence's fire time to the start of the item it is the alarm of;
    /// 0 fires at the occurrence. With a lead, ``trigger`` and ``skipped`` are the item's
    /// times, and ``fireTrigger`` is the first fire time. Only repeats by days or longer
    /// have one (``leading(by:)``).
    ///
    /// Whole days of it are counted on the calendar and the rest in seconds, as RFC 5545
    /// 3.3.6 counts a duration: an alarm a day ahead rings at the item's wall-clock time
    /// the day before, even when the clocks change in between.
    public private(set) var lead = 0

    /// Checks the zone, the calendar and the wall-clock time, naming the field at fault.
    ///
    /// `calendar` may be a Swift name (`islamicCivil`) or a CLDR one (`islamic-civil`), in
    /// any case; the rule keeps the Swift name.
    public init(trigger: Trigger, recurrence: Recurrence? = nil, calendar: String = "gregorian") throws(FieldError) {
        guard let entry = Self.calendarEntry(named: calendar) else {
            let names = Self.calendars.map(\.name).joined(separator: ", ")
            throw FieldError("calendar", "'\(calendar)' is not a known calendar; use one of \(names).")
        }
        switch trigger {
        case .absolute(let date):
            if let problem = LocalDateTime(date, in: .utc).problem {
                throw FieldError("when", "\(date.timeIntervalSince1970) s after 1970 is not a usable instant: \(problem)")
            }
        case .floating(let local):
            try Self.check(local)
        case .zoned(let local, let zone):
            guard Zone(identifier: zone) != nil else { throw FieldError("zone", "'\(zone)' is not a known time zone.") }
            try Self.check(local)
        case .place:
            // A crossing fires it, not the calendar (regionTriggersOnce says how often).
            if recurrence != nil { throw FieldError("repeat", "applies to dates; a place fires at its crossings.") }
        }
        // Days of a week or month are counted on the proleptic Gregorian calendar, as RFC 5545 does.
        if recurrence?.days.isEmpty == false || recurrence?.parts != nil, !["gregorian", "iso8601"].contains(entry.name) {
            throw FieldError("on", "applies to the gregorian calendar only, not \(calendar).")
        }
        self.trigger = trigger
        self.recurrence = recurrence
        self.calendar = entry.name
    }

    private static func check(_ local: LocalDateTime) throws(FieldError) {
        if let problem = local.problem { throw FieldError("when", "'\(local)' is not a valid date and time: \(problem)") }
    }

    // MARK: - Alarms ahead of an item

    /// The first fire time as callers give it (`when`): ``trigger`` less the ``lead``, on
    /// the trigger's own clock.
    public var fireTrigger: Trigger { trigger.moved(by: -lead) }

    /// This rule read as the alarm of an item that starts `seconds` after its first fire
    /// time (``fireTrigger``): a repeat by days or longer then counts its occurrences from
    /// the item's start, on the item's clock, and fires each `seconds` ahead of its own.
    ///
    /// A one-shot fires where it is; minute and hour repeats step from their fire time.
    /// `seconds` of 0 gives the rule without a lead.
    public func leading(by seconds: Int) -> FireRule {
        let applies = seconds != 0 && recurrence.map { !$0.unit.isShorterThanADay } == true && trigger.place == nil
        let lead = applies ? seconds : 0
        guard lead != self.lead else { return self }
        var rule = self
        rule.trigger = fireTrigger.moved(by: lead)
        rule.skipped = Set(skipped.map { LocalDateTime(secondsAsUTC: $0.secondsAsUTC + lead - self.lead) })
        rule.lead = lead
        return rule
    }

    // MARK: - Occurrences

    /// The n-th occurrence (0 = the first), as an instant, in `systemZone` for floating triggers.
    ///
    /// Nil for a negative `n`, past the first for a one-shot, or beyond the year 9999.
    public func occurrence(_ n: Int, systemZone: Zone) -> Date? {
        frame(systemZone)?.occurrence(n)
    }

    /// The first occurrence strictly after `instant` (nil when a one-shot is past).
    public func nextOccurrence(after instant: Date, systemZone: Zone) -> Date? {
        frame(systemZone).flatMap { unskipped($0.firstOccurrence(from: instant, inclusive: false), $0) }?.date
    }

    /// The first occurrence at or after `instant`, with its index.
    ///
    /// The search starts from an estimate made on the wall clock, so its cost does not grow
    /// with the number of occurrences already past.
    public func firstOccurrence(onOrAfter instant: Date, systemZone: Zone) -> (index: Int, date: Date)? {
        frame(systemZone).flatMap { unskipped($0.firstOccurrence(from: instant, inclusive: true), $0) }
    }

    /// The n-th occurrence's wall-clock time on the rule's own clock, as ``skipped`` holds it.
    public func wallClock(ofOccurrence n: Int, systemZone: Zone) -> LocalDateTime? {
        frame(systemZone)?.local(n)
    }

    /// The instants the skipped occurrences would have fired at, earliest first.
    public func skippedInstants(systemZone: Zone) -> [Date] {
        guard let frame = frame(systemZone) else { return [] }
        return skipped.sorted().map(frame.instant)
    }

    /// The occurrence of the item that starts at `start` (an EXDATE, a RECURRENCE-ID): its
    /// index and its wall-clock time on the rule's clock, as ``skipped`` holds it; nil when
    /// no occurrence starts then.
    public func occurrence(startingAt start: Date, systemZone: Zone) -> (index: Int, local: LocalDateTime)? {
        guard let frame = frame(systemZone) else { return nil }
        let local = LocalDateTime(start, in: frame.zone ?? .utc)
        guard let found = frame.firstOccurrence(from: frame.instant(local), inclusive: true), frame.local(found.index) == local
        else { return nil }
        return (found.index, local)
    }

    private func isSkipped(_ n: Int, _ frame: Frame) -> Bool {
        !skipped.isEmpty && frame.local(n).map(skipped.contains) == true
    }

    /// The first occurrence from `found` on that is not skipped.
    private func unskipped(_ found: (index: Int, date: Date)?, _ frame: Frame) -> (index: Int, date: Date)? {
        guard var (index, date) = found else { return nil }
        while isSkipped(index, frame) {
            index += 1
            guard let next = frame.occurrence(index) else { return nil }
            date = next
        }
        return (index, date)
    }

    /// The next `count` occurrences at or after `instant` that are not skipped, with their indexes.
    public func upcomingOccurrences(from instant: Date, count: Int, systemZone: Zone) -> [(index: Int, date: Date)] {
        guard count > 0, let frame = frame(systemZone),
              var (n, date) = unskipped(frame.firstOccurrence(from: instant, inclusive: true), frame)
        else { return [] }
        var found = [(n, date)]
        var budget = Frame.stepLimit
        while found.count < count, budget > 0, let next = frame.occurrence(n + 1) {
            n += 1
            budget -= 1
            if next > date, !isSkipped(n, frame) {
                found.append((n, next))
                date = next
            }
        }
        return found
    }

    /// The next `count` fire times at or after `instant`, each later than the one before
    /// (occurrences that share an instant fire once).
    public func upcoming(from instant: Date, count: Int, systemZone: Zone) -> [Date] {
        upcomingOccurrences(from: instant, count: count, systemZone: systemZone).map(\.date)
    }

    private func frame(_ systemZone: Zone) -> Frame? {
        guard let entry = Self.calendarEntry(named: calendar) else { return nil }
        let calendarSteps = CalendarSteps(entry)
        switch trigger {
        case .absolute(let date):
            let whole = LocalDateTime.wholeSeconds(date)
            let fraction = date.timeIntervalSince1970 - TimeInterval(whole)
            return Frame(
                start: LocalDateTime(secondsAsUTC: whole), zone: nil, fraction: (0..<1).contains(fraction) ? fraction : 0,
                recurrence: recurrence, calendar: calendarSteps, lead: lead)
        case .floating(let local):
            return Frame(start: local, zone: systemZone, fraction: 0, recurrence: recurrence, calendar: calendarSteps, lead: lead)
        case .zoned(let local, let zone):
            guard let zone = Zone(identifier: zone) else { return nil }
            return Frame(start: local, zone: zone, fraction: 0, recurrence: recurrence, calendar: calendarSteps, lead: lead)
        case .place:
            return nil
        }
    }

    // MARK: - RRULE text

    /// The repeat as the RRULE other calendar clients read (`Get`, `chime export`); nil for
    /// a one-shot. UNTIL is in UTC for an instant. RFC 7529's RSCALE and SKIP are written
    /// only where they change an occurrence, a monthly repeat from a day after the 28th or
    /// a yearly one from 29 February, so that clients without RFC 7529 read every other
    /// rule as before.
    public var rrule: String? {
        guard let recurrence, let entry = Self.calendarEntry(named: calendar) else { return recurrence?.rrule() }
        let start: LocalDateTime?
        switch trigger {
        case .absolute(let date): start = LocalDateTime(date, in: .utc)
        case .floating(let local), .zoned(let local, _): start = local
        case .place: start = nil
        }
        var matters = false
        if case .gregorian = CalendarSteps(entry), let start, recurrence.skip != .omit, recurrence.stepsOverMonthEnds {
            matters = recurrence.unit == .month ? start.day > 28 : start.month == 2 && start.day == 29
        }
        return recurrence.rrule(utc: trigger.isAbsolute, monthEnds: matters)
    }

    // MARK: - Calendars

    /// The calendars a rule may name: by their Swift names (as Foundation's
    /// `Calendar.Identifier` spells them, and as rules are stored) and their CLDR names,
    /// which are also ICU's `@calendar=` keywords.
    ///
    /// The regional Indian calendars Foundation added in 2025 (`bangla`, `gujarati`, `tamil`,
    /// `vikram`, …) are left out: on Linux, adding a month to a date in them returned the same
    /// date, so a monthly repeat would never advance. So are `vietnamese` and
    /// `ethiopicAmeteAlem`, which acted as Gregorian (``retiredCalendars``).
    public static let calendars: [(name: String, cldr: String)] = [
        ("gregorian", "gregorian"), ("iso8601", "iso8601"), ("buddhist", "buddhist"), ("chinese", "chinese"),
        ("coptic", "coptic"), ("dangi", "dangi"), ("ethiopicAmeteMihret", "ethiopic"), ("hebrew", "hebrew"),
        ("indian", "indian"), ("islamic", "islamic"), ("islamicCivil", "islamic-civil"), ("islamicTabular", "islamic-tbla"),
        ("islamicUmmAlQura", "islamic-umalqura"), ("japanese", "japanese"), ("persian", "persian"),
        ("republicOfChina", "roc"),
    ]

    /// Refuses a repeat in a calendar the system's ICU counts when ICU cannot be loaded:
    /// the rule would have no occurrence after its first. Checked where rules are made,
    /// not where they are read back, so that a stored rule is never dropped for it.
    public func checkCalendarIsCounted() throws(FieldError) {
        guard recurrence != nil, let entry = Self.calendarEntry(named: calendar), case .icu = CalendarSteps(entry),
              let failure = ICUCalendar.loadFailure else { return }
        throw FieldError("calendar", "'\(calendar)' is counted by the system's ICU library, which cannot be loaded: \(failure).")
    }

    /// Calendars earlier versions accepted that acted as Gregorian, by their stored names: a
    /// rule stored with one keeps firing as it did, on the Gregorian calendar.
    public static let retiredCalendars = ["vietnamese", "ethiopicAmeteAlem"]

    /// The calendar a stored rule counts on: its own, or `gregorian` for a retired one.
    public static func storedCalendar(_ name: String) -> String {
        retiredCalendars.contains(name) ? "gregorian" : name
    }

    /// The calendar a name stands for: its Swift name or its CLDR name (`islamic-civil`,
    /// `roc`), in any case.
    public static func calendarEntry(named name: String) -> (name: String, cldr: String)? {
        func folded(_ text: String) -> String { text.lowercased().filter { $0 != "-" && $0 != "_" } }
        let wanted = folded(name)
        return calendars.first { folded($0.name) == wanted || folded($0.cldr) == wanted }
    }
}

/// A rule made concrete for one system zone: the wall clock it counts on and how to read it.
private struct Frame {
    /// The first occurrence on the frame's wall clock.
    let start: LocalDateTime
    /// The zone the wall clock is read in; nil for UTC, which has neither gaps nor overlaps.
    let zone: Zone?
    /// The fraction of a second an absolute trigger carries past its whole second.
    let fraction: TimeInterval
    let recurrence: Recurrence?
    /// The rule's calendar, for month and year steps on the wall clock.
    let calendar: CalendarSteps
    /// Seconds each occurrence fires ahead of its wall-clock time (``FireRule/lead``).
    let lead: Int
    /// What a step onto a month without the start's day does: the recurrence's own on the
    /// Gregorian calendar; on the others, the month's last day, as they always counted.
    let skip: MonthEndSkip
    /// The steps that exist, where months without the start's day are left out.
    let existing: ExistingSteps?
    /// The periods of a rule with BY parts Chime's days do not say.
    let expansion: RuleExpansion?

    init(start: LocalDateTime, zone: Zone?, fraction: TimeInterval, recurrence: Recurrence?, calendar: CalendarSteps, lead: Int) {
        (self.start, self.zone, self.fraction, self.recurrence, self.calendar, self.lead) = (start, zone, fraction, recurrence, calendar, lead)
        if case .gregorian = calendar, let recurrence, recurrence.stepsOverMonthEnds {
            skip = recurrence.skip
            existing = skip == .omit ? ExistingSteps(start: start, months: recurrence.count * (recurrence.unit == .year ? 12 : 1)) : nil
        } else {
            (skip, existing) = (.backward, nil)
        }
        expansion = recurrence.flatMap { recurrence in recurrence.parts.map { RuleExpansion(start: start, recurrence: recurrence, parts: $0) } }
    }

    /// The most occurrences `upcoming` reads for one result: enough to pass every minute
    /// folded into Samoa's skipped day.
    static let stepLimit = 20_000

    func occurrence(_ n: Int) -> Date? {
        guard n >= 0, let local = local(n) else { return nil }
        return instant(local)
    }

    func local(_ n: Int) -> LocalDateTime? {
        guard let recurrence, recurrence.limit.map({ n < $0 }) ?? true else { return n == 0 ? start : nil }
        let found = if let expansion { expansion.local(n) } else {
            recurrence.days.isEmpty ? stepped(n, recurrence) : recurrence.dayOccurrence(n, from: start)
        }
        guard let local = found,
              local.year <= 9999, recurrence.until.map({ local <= $0 }) ?? true
        else { return nil }
        return local
    }

    private func stepped(_ n: Int, _ recurrence: Recurrence) -> LocalDateTime? {
        guard n > 0 else { return n == 0 ? start : nil }
        guard let step = existing.map({ $0.step(ofOccurrence: n) }) ?? n else { return nil }
        let (steps, overflow) = step.multipliedReportingOverflow(by: recurrence.count)
        guard !overflow else { return nil }
        let local: LocalDateTime
        if let unit = recurrence.unit.fixedSeconds {
            let (delta, overflow) = steps.multipliedReportingOverflow(by: unit)
            guard !overflow, delta < Self.maximumSpan else { return nil }
            local = LocalDateTime(secondsAsUTC: start.secondsAsUTC + delta)
        } else {
            guard steps <= (recurrence.unit == .month ? 12 : 1) * 10_000,
                  let moved = calendar.adding(steps, years: recurrence.unit == .year, to: start, skip: skip)
            else { return nil }
            local = moved
        }
        return local
    }

    /// Ten thousand years, in seconds: no occurrence is further than that from the first.
    private static let maximumSpan = 10_000 * 366 * 86_400

    /// When the occurrence at `local` fires: its instant, less the lead.
    func instant(_ local: LocalDateTime) -> Date {
        // RFC 5545 3.3.6: a duration's days are nominal, its hours, minutes and seconds exact.
        let days = lead / 86_400, seconds = lead % 86_400
        let local = days == 0 ? local : LocalDateTime(secondsAsUTC: local.secondsAsUTC - days * 86_400)
        guard let zone else { return Date(timeIntervalSince1970: TimeInterval(local.secondsAsUTC - seconds) + fraction) }
        let resolved = local.resolve(in: zone)
        if recurrence?.unit.isShorterThanADay == true, let gapEnd = resolved.gapEnd {
            return Date(timeIntervalSince1970: TimeInterval(gapEnd))
        }
        return Date(timeIntervalSince1970: TimeInterval(resolved.instant - seconds))
    }

    /// The first occurrence at (when `inclusive`) or after `instant`, with its index.
    ///
    /// Occurrences never go backwards, so this gallops from the estimate towards the answer
    /// and then bisects: a few steps, even across the 1 440 minutes a gap can fold together.
    func firstOccurrence(from instant: Date, inclusive: Bool) -> (index: Int, date: Date)? {
        if let expansion, let recurrence {
            // No offset moves a wall-clock time by as much as a day (Samoa's jump): three days
            // before the wall-clock time of the instant is before the answer.
            let target = LocalDateTime(instant.addingTimeInterval(TimeInterval(lead)), in: zone ?? .utc)
            let early = LocalDateTime(secondsAsUTC: target.secondsAsUTC - 3 * 86_400)
            let found = expansion.first(from: early, limit: recurrence.limit, until: recurrence.until) { local in
                let date = self.instant(local)
                return inclusive ? date >= instant : date > instant
            }
            return found.map { ($0.index, self.instant($0.local)) }
        }
        // Past the year 9999 there are no occurrences; count them as qualifying, as bounds.
        func qualifies(_ n: Int) -> Bool {
            guard let date = occurrence(n) else { return true }
            return inclusive ? date >= instant : date > instant
        }
        // The answer lies in (low, high]; low = -1 stands for "before the first".
        var low: Int
        var high = estimate(instant)
        var step = 1
        if qualifies(high) {
            low = -1
            while high > 0 {
                let candidate = max(high - step, 0)
                if qualifies(candidate) { high = candidate } else { low = candidate; break }
                step *= 2
            }
        } else {
            low = high
            while true {
                let (candidate, overflow) = low.addingReportingOverflow(step)
                if overflow { return nil }
                if qualifies(candidate) { high = candidate; break }
                low = candidate
                step = step < Int.max / 2 ? step * 2 : step
            }
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if qualifies(middle) { high = middle } else { low = middle }
        }
        return occurrence(high).map { (high, $0) }
    }

    /// An index at or a little before the first occurrence at `instant`, from the distance
    /// between the two on the wall clock.
    private func estimate(_ instant: Date) -> Int {
        guard let recurrence else { return 0 }
        // The occurrence that fires at `instant` is about `lead` later on the wall clock.
        let target = LocalDateTime(instant.addingTimeInterval(TimeInterval(lead)), in: zone ?? .utc)
        guard target > start else { return 0 }
        let units: Int
        if let unit = recurrence.unit.fixedSeconds {
            units = (target.secondsAsUTC - start.secondsAsUTC) / unit
        } else {
            units = calendar.count(years: recurrence.unit == .year, from: start, to: target)
        }
        let steps = max(0, units / recurrence.count - 1)
        return (existing.map { $0.occurrences(before: steps) } ?? steps) * max(1, recurrence.days.count)
    }

}
