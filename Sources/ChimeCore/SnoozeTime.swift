import FoundationEssentials

/// When a snoozed notification comes back: after a length of time (`10m`, `1h`), or at
/// a time of day (`tomorrow 9:00`, `18:00`) read when the snooze happens, as KAlarm's
/// and GNOME's "tomorrow morning" choices are.
public enum SnoozeTime: Equatable, Sendable {
    /// This many seconds after the snooze.
    case after(TimeInterval)
    /// A time as `chime add --at` takes it, read at the moment of the snooze.
    case at(String)

    /// Reads `text`: a duration first, then a time. Errors name `field` and list both forms.
    public init(parsing text: String, field: String, now: Date = Date(), systemZone: Zone = .current) throws(FieldError) {
        let trimmed = text.trimmingSpaces
        if let seconds = try? WhenParser.duration(trimmed, field: field) {
            self = .after(seconds)
            return
        }
        // "in 20m" is the duration 20m, as `--in` and `--at "in 20m"` agree.
        if trimmed.lowercased().hasPrefix("in ") {
            self = .after(try WhenParser.duration(String(trimmed.dropFirst(3)), field: field))
            return
        }
        do {
            _ = try WhenParser(now: now, systemZone: systemZone).trigger(trimmed)
        } catch {
            throw FieldError(field, "'\(trimmed)' is neither a duration (10m, 1h30m, 2d) nor a time to come back at "
                + "(18:00, tomorrow 9:00): \(error.reason)")
        }
        self = .at(trimmed)
        _ = try fireRule(now: now, systemZone: systemZone, field: field)
    }

    /// The one-shot rule of a copy snoozed at `now`; an error when that time is not ahead.
    public func fireRule(now: Date, systemZone: Zone, field: String = "when") throws(FieldError) -> FireRule {
        let trigger: Trigger
        switch self {
        case .after(let seconds):
            trigger = .absolute(now.addingTimeInterval(seconds))
        case .at(let text):
            // A wall-clock time stays one: "tomorrow 9:00" is nine on the clock wherever the machine is then.
            do {
                trigger = try WhenParser(now: now, systemZone: systemZone).trigger(text)
            } catch {
                throw FieldError(field, error.reason)
            }
        }
        let rule = try FireRule(trigger: trigger)
        guard let first = rule.occurrence(0, systemZone: systemZone), first > now else {
            throw FieldError(field, "'\(description)' is not ahead: a snoozed notification comes back later.")
        }
        return rule
    }

    /// How it was given: `10m` as seconds in words, a time as written.
    public var description: String {
        switch self {
        case .after(let seconds): "\(Int(seconds))s"
        case .at(let text): text
        }
    }
}
