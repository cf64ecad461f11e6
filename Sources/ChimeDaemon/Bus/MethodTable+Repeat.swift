import ChimeAPI
import ChimeCore
import DBus
import FoundationEssentials

/// `Occurrences` and `Skip`: what is to come of a scheduled repeat, and leaving one out.
extension MethodTable {
    func occurrences(_ call: MethodCall) throws(DBusError) -> [Value] {
        guard case .uint32(let count) = call.arguments[1], Limits.nextFireCount.contains(count) else {
            let counts = Limits.nextFireCount
            throw .invalidArgs("count: must be between \(counts.lowerBound) and \(counts.upperBound).")
        }
        let notification = try scheduled(call.string(0))
        return [.array(element: "x", upcoming(notification, count: Int(count)).map { .int64(NotificationEncoding.seconds($0.date)) })]
    }

    func skip(_ call: MethodCall, _ responder: Responder) throws(DBusError) {
        var notification = try scheduled(call.string(0))
        let which = call.string(1).trimmingSpaces
        guard notification.rule.recurrence != nil else {
            throw .invalidArgs("id: '\(notification.id)' does not repeat; cancel it instead of skipping its only occurrence.")
        }
        let zone = Zone.current
        let coming = upcoming(notification, count: Int(Limits.nextFireCount.upperBound))
        guard let skipped = try pick(which, from: coming, zone: zone) else {
            throw .invalidArgs("occurrence: '\(which)' is none of the next occurrences of '\(notification.id)'; chime next ID lists them.")
        }
        guard let local = notification.rule.wallClock(ofOccurrence: skipped.index, systemZone: zone) else {
            throw .invalidArgs("occurrence: '\(which)' is none of the next occurrences of '\(notification.id)'.")
        }
        notification.rule.skipped.insert(local)
        let from = notification.nextFire ?? skipped.date
        let next = notification.rule.firstOccurrence(onOrAfter: min(from, skipped.date), systemZone: zone)
        notification.nextIndex = next?.index ?? skipped.index + 1
        notification.nextFire = next?.date
        schedule.skip(notification) { [unowned self] result in
            switch result {
            case .success:
                logger.info("Skipped \(notification.id) at \(skipped.date).")
                responder.reply([.int64(NotificationEncoding.seconds(skipped.date))])
            case .failure(let error):
                responder.fail(.refused("Not skipped", error))
            }
        }
    }

    /// A notification still to fire at a time, NotFound when there is none with that id.
    private func scheduled(_ id: String) throws(DBusError) -> ScheduledNotification {
        guard let notification = try commits.read({ () throws(StoreError) in try store.notification(id: id) }),
              notification.rule.trigger.place == nil
        else { throw ChimeError.notFound(id) }
        return notification
    }

    /// Its next `count` occurrences from the one due next (which may be waiting to be shown).
    private func upcoming(_ notification: ScheduledNotification, count: Int) -> [(index: Int, date: Date)] {
        guard let next = notification.nextFire, notification.state == .scheduled else { return [] }
        return notification.rule.upcomingOccurrences(from: next, count: count, systemZone: .current)
    }

    /// The occurrence `which` names: "" the next, N the N-th, a date the first that day, a time that one.
    private func pick(_ which: String, from coming: [(index: Int, date: Date)], zone: Zone) throws(DBusError)
        -> (index: Int, date: Date)? {
        if which.isEmpty { return coming.first }
        if let number = Int(which) { return number >= 1 && number <= coming.count ? coming[number - 1] : nil }
        if let day = LocalDateTime(iso: which + "T00:00:00") {
            return coming.first { occurrence in
                let local = LocalDateTime(occurrence.date, in: zone)
                return (local.year, local.month, local.day) == (day.year, day.month, day.day)
            }
        }
        let trigger: Trigger
        do { trigger = try WhenParser(now: now(), systemZone: zone).trigger(which) } catch {
            throw .invalidArgs("occurrence: '\(which)' is not a number, a date or a time: \(error.reason)")
        }
        guard let instant = trigger.instant(systemZone: zone) else { return nil }
        return coming.first { abs($0.date.timeIntervalSince(instant)) < 1 }
    }
}
