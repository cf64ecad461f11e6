import Foundation
import Testing
@testable import ChimeDaemon

/// The `[Calendars]` group of the config: when an all-day item's day starts for its alarms.
struct CalendarsConfigTests {
    private func load(_ text: String) throws -> Result<Config, ConfigError> {
        try ConfigTests.load(text)
    }

    @Test func anAllDayTimeIsReadAndMidnightIsTheDefault() throws {
        #expect(try load("[Calendars]\nAllDayTime=09:30\n").get().allDayTime == Config.TimeOfDay(hour: 9, minute: 30))
        #expect(try load("[Calendars]\n").get().allDayTime == .midnight)
        #expect(try load("[App org.example.A]\nAlerts=false\n").get().allDayTime == .midnight)
    }

    @Test(arguments: [
        ("[Calendars]\nAllDayTime=9am\n", 2, "AllDayTime is '9am': write a time of day from 00:00 to 23:59, such as 09:00."),
        ("[Calendars]\nAllDayTime=24:00\n", 2, "AllDayTime is '24:00': write a time of day from 00:00 to 23:59, such as 09:00."),
        ("[Calendars]\nAllDay=09:00\n", 2, "[Calendars] has no key 'AllDay': its keys are AllDayTime."),
    ])
    func badValuesAreReportedWithTheirLineAndCostOnlyTheirGroup(text: String, line: Int, message: String) throws {
        let result = try load(text + "[App org.example.A]\nAlerts=false\n")
        guard let error = result.firstError else {
            Issue.record("expected an error, got \(result)")
            return
        }
        #expect(error.line == line)
        #expect(error.message.hasSuffix(message), "\(error.message)")
        let config = try result.get()
        #expect(config.allDayTime == .midnight && config.apps["org.example.A"]?.alerts == false)
    }
}
