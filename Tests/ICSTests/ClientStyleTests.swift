import DBus
import ICS
import Testing

/// Acknowledgements, snoozes and completions as each client writes them, read as that
/// client means them: what rings, and when. Written in each client's documented style
/// (property names, order, their own X- properties).
struct ClientStyleTests {
    /// The alarms of `lines` (one VEVENT or VTODO) still to ring: keys and times.
    func ringing(_ lines: [String]) throws -> [String: String] {
        let plan = try component(calendar(lines)).plan.get()
        let asked = try plan.requests(firstFire: FirstFire().answer)
        return Dictionary(asked.map { request in
            (request.alarm, Dictionary(request.request, uniquingKeysWith: { first, _ in first })["when"]?.stringValue ?? "place")
        }, uniquingKeysWith: { first, _ in first })
    }

    func outcome(_ lines: [String]) throws -> String {
        ICSTests.outcome(try component(calendar(lines)))
    }

    // MARK: - Thunderbird (X-MOZ-LASTACK, X-MOZ-SNOOZE-TIME)

    @Test func thunderbirdDismissedAlarmRingsNoMore() throws {
        #expect(try outcome(["BEGIN:VEVENT", "UID:tb-1", "SUMMARY:Dentist", "DTSTART:20301203T093000Z", "X-MOZ-LASTACK:20301203T091600Z",
                             "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION:-PT15M", "DESCRIPTION:Mozilla Alarm", "END:VALARM",
                             "END:VEVENT"]) == "skipped: its alarms were acknowledged")
    }

    @Test func thunderbirdSnoozedAlarmRingsAtTheSnooze() throws {
        #expect(try ringing(["BEGIN:VEVENT", "UID:tb-2", "SUMMARY:Dentist", "DTSTART:20301203T093000Z",
                             "X-MOZ-LASTACK:20301203T091600Z", "X-MOZ-SNOOZE-TIME:20301203T092600Z",
                             "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION:-PT15M", "DESCRIPTION:Mozilla Alarm",
                             "END:VALARM", "END:VEVENT"]) == ["X-MOZ-SNOOZE-TIME": "2030-12-03T09:26:00+00:00"])
    }

    /// A repeating item's snooze names its occurrence in microseconds; the series rings on.
    @Test func thunderbirdSnoozeOfOneOccurrenceRingsOnceAndTheSeriesGoesOn() throws {
        let ringing = try ringing(["BEGIN:VEVENT", "UID:tb-3", "SUMMARY:Standup", "DTSTART:20301202T090000Z", "RRULE:FREQ=DAILY",
                                   "X-MOZ-LASTACK:20301203T085600Z", "X-MOZ-SNOOZE-TIME-1922432400000000:20301203T090500Z",
                                   "BEGIN:VALARM", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION:-PT5M", "END:VALARM", "END:VEVENT"])
        #expect(ringing == ["#1": "2030-12-02T08:55:00+00:00", "X-MOZ-SNOOZE-TIME-1922432400000000": "2030-12-03T09:05:00+00:00"])
    }

    // MARK: - Apple (X-WR-ALARMUID, ACKNOWLEDGED, RFC 9074 snoozes)

    @Test func appleAcknowledgedAlarmRingsNoMoreAndItsSnoozeRingsOnce() throws {
        let ringing = try ringing([
            "BEGIN:VEVENT", "UID:apple-1", "SUMMARY:Call mum", "DTSTART;TZID=Europe/Berlin:20301203T180000",
            "BEGIN:VALARM", "X-WR-ALARMUID:A1", "UID:A1", "TRIGGER:-PT30M", "ACTION:DISPLAY", "DESCRIPTION:Reminder",
            "ACKNOWLEDGED:20301203T163100Z", "END:VALARM",
            "BEGIN:VALARM", "X-WR-ALARMUID:S1", "UID:S1", "TRIGGER;VALUE=DATE-TIME:20301203T164100Z", "ACTION:DISPLAY",
            "DESCRIPTION:Reminder", "RELATED-TO;RELTYPE=SNOOZE:A1", "END:VALARM", "END:VEVENT",
        ])
        #expect(ringing == ["S1": "2030-12-03T16:41:00+00:00"])
    }

    @Test func appleCompletedReminderRingsNothing() throws {
        #expect(try outcome(["BEGIN:VTODO", "UID:apple-2", "SUMMARY:Buy milk", "DUE;VALUE=DATE:20301203", "STATUS:COMPLETED",
                             "COMPLETED:20301202T101010Z", "PERCENT-COMPLETE:100",
                             "BEGIN:VALARM", "X-WR-ALARMUID:A2", "UID:A2", "TRIGGER;VALUE=DATE-TIME:20301203T080000Z",
                             "ACTION:DISPLAY", "DESCRIPTION:Reminder", "END:VALARM", "END:VTODO"])
                == "skipped: it is cancelled or completed")
    }

    // MARK: - Evolution (X-EVOLUTION-ALARM-UID)

    @Test func evolutionAlarmIsKnownByItsOwnUIDAndAcknowledgedOnce() throws {
        let ringing = try ringing([
            "BEGIN:VEVENT", "UID:evo-1", "SUMMARY:Review", "DTSTART:20301203T140000Z", "DTEND:20301203T150000Z",
            "BEGIN:VALARM", "X-EVOLUTION-ALARM-UID:e1", "ACTION:DISPLAY", "TRIGGER;VALUE=DURATION;RELATED=START:-PT10M",
            "DESCRIPTION:Review", "ACKNOWLEDGED:20301203T135000Z", "END:VALARM",
            "BEGIN:VALARM", "X-EVOLUTION-ALARM-UID:e2", "ACTION:AUDIO", "TRIGGER;VALUE=DURATION;RELATED=END:-PT5M", "END:VALARM",
            "END:VEVENT",
        ])
        #expect(ringing == ["e2": "2030-12-03T14:55:00+00:00"])
    }

    // MARK: - tasks.org and Nextcloud Tasks

    /// tasks.org completes an occurrence of a repeating task by moving its DUE on: the
    /// series rings from there.
    @Test func tasksOrgRepeatingTaskMovedOnRingsFromItsNewDue() throws {
        let ringing = try ringing(["BEGIN:VTODO", "UID:tasks-1", "SUMMARY:Water the plants", "DTSTART:20301209T090000Z",
                                   "DUE:20301209T090000Z", "RRULE:FREQ=WEEKLY", "STATUS:NEEDS-ACTION", "X-APPLE-SORT-ORDER:1",
                                   "BEGIN:VALARM", "TRIGGER;RELATED=END:PT0S", "ACTION:DISPLAY", "DESCRIPTION:Default Tasks.org description",
                                   "END:VALARM", "END:VTODO"])
        #expect(ringing == ["#1": "2030-12-09T09:00:00+00:00"])
    }

    /// Nextcloud Tasks completes a task so, with its percentage; a completed occurrence of a
    /// series (its RECURRENCE-ID override) leaves the series to ring on.
    @Test func nextcloudCompletedTaskAndCompletedOccurrence() throws {
        #expect(try outcome(["BEGIN:VTODO", "UID:nc-1", "CREATED:20301101T100000Z", "SUMMARY:Report", "DUE:20301205T170000Z",
                             "PERCENT-COMPLETE:100", "STATUS:COMPLETED", "COMPLETED:20301204T110000Z", "END:VTODO"])
                == "skipped: it is cancelled or completed")
        let override = try component(calendar(["BEGIN:VTODO", "UID:nc-2", "RECURRENCE-ID:20301209T090000Z", "SUMMARY:Standup notes",
                                                "DUE:20301209T090000Z", "STATUS:COMPLETED", "COMPLETED:20301209T091000Z", "END:VTODO"]))
        let plan = try override.plan.get()
        #expect(plan.cancelled && plan.replaces == "2030-12-09T09:00:00+00:00", "the series skips that occurrence")
    }
}
