import FoundationEssentials

/// Where a rule starts when it is scheduled (or given a new time): at its first occurrence
/// still to come, so that "late" is left for occurrences that were missed.
///
/// - A **repeat** starts at its first occurrence from now. A weekly reminder begun four
///   weeks ago, or a birthday from 1960 imported from a calendar, has missed nothing, since
///   nobody was waiting for it; firing its past at once, late, told people they had been
///   away. A repeat whose every occurrence is past (its count or end came) is ``over``.
/// - A **one-shot** in the past is refused (``past``): at(1) refuses one too, and a wrong
///   year is the likeliest typo.
/// - An occurrence less than ``grace`` ago counts as now: a time typed in the minute it
///   names, or a bus that took a while, is on time, so it fires at once and is not late.
/// - A caller that asks for the past (`late`) gets the rule from its first occurrence
///   wherever that is: what is past fires at once, late, as a missed occurrence does.
public enum FirstFire {
    /// How long ago an occurrence may be and still count as now.
    public static let grace: TimeInterval = MissedFire.onTimeTolerance

    /// Where to start.
    public enum Decision: Equatable, Sendable {
        /// At occurrence `index`, due at `date` (now, for one within the grace).
        case start(index: Int, date: Date)
        /// A one-shot due at `due`, more than the grace ago.
        case past(due: Date)
        /// A repeat with nothing to come: its last occurrence was at `last`, ended by its
        /// `count` or its `until`.
        case over(last: Date, endedBy: End)
        /// No occurrence this side of the year 9999 (or a place, which starts on its own).
        case none
    }

    /// What ended a repeat.
    public enum End: Equatable, Sendable {
        case count, until
    }

    /// Decides where `rule`, scheduled at `now`, starts; `late` starts it at its first occurrence however past.
    public static func decide(rule: FireRule, now: Date, late: Bool, systemZone: Zone) -> Decision {
        guard let first = rule.occurrence(0, systemZone: systemZone) else { return .none }
        if late { return .start(index: 0, date: first) }
        let earliest = now.addingTimeInterval(-grace)
        guard let recurrence = rule.recurrence else {
            if first < earliest { return .past(due: first) }
            return .start(index: 0, date: max(first, now))
        }
        if let (index, date) = rule.firstOccurrence(onOrAfter: earliest, systemZone: systemZone) {
            return .start(index: index, date: max(date, now))
        }
        if let limit = recurrence.limit, let last = rule.occurrence(limit - 1, systemZone: systemZone) {
            return .over(last: last, endedBy: .count)
        }
        return .over(last: rule.lastOccurrence(systemZone: systemZone) ?? first, endedBy: .until)
    }
}

extension FireRule {
    /// The last occurrence of a rule that ends, skipped ones left out; for one without an
    /// end, the last before the year 9999. Nil when every occurrence is skipped.
    ///
    /// Occurrences exist from the first up to the end and none after, so this gallops to
    /// the first index without one and bisects back.
    public func lastOccurrence(systemZone: Zone) -> Date? {
        guard occurrence(0, systemZone: systemZone) != nil else { return nil }
        var low = 0
        var high = 1
        while occurrence(high, systemZone: systemZone) != nil {
            low = high
            let (doubled, overflow) = high.multipliedReportingOverflow(by: 2)
            guard !overflow else { return occurrence(low, systemZone: systemZone) }
            high = doubled
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if occurrence(middle, systemZone: systemZone) != nil { low = middle } else { high = middle }
        }
        while low >= 0, let local = wallClock(ofOccurrence: low, systemZone: systemZone), skipped.contains(local) { low -= 1 }
        return occurrence(low, systemZone: systemZone)
    }
}
