import Testing
@testable import chime

/// chimed's refusals name its keys; chime says the option and the value the user typed.
struct RefusalTextTests {
    static func said(_ message: String, _ arguments: [String]) -> String? {
        RefusalText.sentence(message, typed: TypedWords(arguments))
    }

    @Test(arguments: [
        ("lateLimit: 'soon' is not a duration; use 20m, 1h30m, 90s, 2d or 1w.", ["add", "T", "--in", "1h", "--late-limit", "soon"],
         "--late-limit 'soon' is not a duration; use 20m, 1h30m, 90s, 2d or 1w."),
        ("when: '0' is not a duration: 0 has no unit; use s, m, h, d or w.", ["add", "T", "--in", "0"],
         "--in '0' is not a duration: 0 has no unit; use s, m, h, d or w."),
        ("when: 'tomorow' is not a time: 'tomorow' is not understood; did you mean 'tomorrow'?", ["edit", "3kq9xw2m", "--at=tomorow"],
         "--at 'tomorow' is not a time: 'tomorow' is not understood; did you mean 'tomorrow'?"),
        ("count: must be between 1 and 1000000, not 0.", ["add", "T", "--in", "1h", "--repeat", "day", "--count", "0"],
         "--count '0' must be between 1 and 1000000, not 0."),
        ("rrule: BYSETPOS is not supported; use FREQ.", ["add", "T", "--in", "1h", "--rrule", "FREQ=DAILY;BYSETPOS=1"],
         "--rrule 'FREQ=DAILY;BYSETPOS=1': BYSETPOS is not supported; use FREQ."),
        ("floating: applies to wall-clock times; 'in 1h' is an instant.", ["add", "T", "--in", "1h", "--floating"],
         "--floating applies to wall-clock times; 'in 1h' is an instant."),
        ("desktopEntry: '../x' is not a desktop entry id such as org.gnome.Calendar.", ["badge", "--app", "../x", "1"],
         "--app '../x' is not a desktop entry id such as org.gnome.Calendar."),
        ("hint.value: 'many' is not a 32-bit integer.", ["notify", "-h", "int:value:many", "T"], "-h 'many' is not a 32-bit integer."),
        ("userInfo.n: is nan; a number must be finite.", ["add", "T", "--in", "1h", "--user-info", "a=1", "--user-info", "n=x"],
         "--user-info 'n=x' is nan; a number must be finite."),
        ("action.1: must not be empty.", ["add", "T", "--in", "1h", "-A", "Open", "-A", "Close"], "-A 'Close' must not be empty."),
        ("title: must not be empty.", ["add", "", "--in", "1h"], "TITLE must not be empty."),
        ("title: must not be empty.", ["edit", "3kq9xw2m", "--title", ""], "--title '' must not be empty."),
    ])
    func theKeyBecomesTheOptionAsTyped(message: String, arguments: [String], expected: String) {
        #expect(Self.said(message, arguments) == expected)
    }

    @Test(arguments: [
        ("when: 'tomorow' is not a time: 'tomorow' is not understood; did you mean 'tomorrow'?", ["next", "tomorow"],
         "'tomorow' is not a time: 'tomorow' is not understood; did you mean 'tomorrow'?"),
        ("occurrence: '2030-01-08' is none of the next occurrences of '3kq9xw2m'.", ["skip", "3kq9xw2m", "2030-01-08"],
         "'2030-01-08' is none of the next occurrences of '3kq9xw2m'."),
    ])
    func anArgumentIsNamedByTheWordsOfTheReason(message: String, arguments: [String], expected: String) {
        #expect(Self.said(message, arguments) == expected)
    }

    @Test(arguments: [
        ("every: needs repeat: every 3 of which unit?", ["add", "T", "--in", "1h", "--every", "3"],
         "--every 3 needs --repeat to say every 3 of what, as in --repeat day --every 3."),
        ("count: needs repeat: say how it repeats, e.g. repeat weekly.", ["add", "T", "--in", "1h", "--count", "3"],
         "--count needs --repeat to say how it repeats, as in --repeat week."),
        ("every: cannot be combined with rrule, which says how it repeats by itself.", ["add", "T", "--in", "1h", "--every", "2", "--rrule", "FREQ=DAILY"],
         "--every cannot be combined with --rrule, which says how it repeats by itself."),
        ("every: cannot be combined with repeat '2 weeks', which has a count of its own.", ["add", "T", "--in", "1h", "--every", "2", "--repeat", "2 weeks"],
         "--every cannot be combined with --repeat '2 weeks', which has a count of its own."),
        ("zone: needs when: give the time again with the clock it is read on.", ["edit", "3kq9xw2m", "--zone", "Europe/Paris"],
         "--zone needs --at: give the time again with the clock it is read on."),
        ("repeat: and region cannot both be given: a notification fires at a date or at a place, never both.",
         ["add", "T", "--near", "1,2", "--repeat", "day"],
         "--repeat and --near cannot both be given: a notification fires at a time or at a place, never both."),
        ("repeat: 'weekdays' is not a repeat interval; use a unit.", ["add", "T", "--in", "1h", "--repeat", "weekdays"],
         "--repeat 'weekdays' is not a unit of time; did you mean --repeat week --on weekdays?"),
        ("repeat: 'biweekly' is not a repeat interval; use a unit.", ["edit", "3kq9xw2m", "--repeat", "biweekly"],
         "--repeat 'biweekly' is not a unit of time; did you mean --every 2 --repeat week?"),
    ])
    func aReasonNamingAnotherKeyIsSaidInOptions(message: String, arguments: [String], expected: String) {
        #expect(Self.said(message, arguments) == expected)
    }

    @Test func aRepeatWithoutALikelyFixKeepsChimedsReason() {
        #expect(Self.said("repeat: 'sometimes' is not a repeat interval; use a unit.", ["add", "T", "--in", "1h", "--repeat", "sometimes"])
            == "--repeat 'sometimes' is not a repeat interval; use a unit.")
    }

    @Test(arguments: [
        ("The message is larger than 262144 bytes, the most this service reads from one message.", ["add", "T", "--in", "1h"]),
        ("limit must be at most 10000, not 20000; 0 asks for the newest 50.", ["log", "--limit", "20000"]),
        ("mystery: something.", ["add", "T", "--in", "1h"]),
        ("id: something else.", ["skip", "3kq9xw2m"]),
    ])
    func aMessageNamingNoKeyChimeSendsIsLeftAsItIs(message: String, arguments: [String]) {
        #expect(Self.said(message, arguments) == nil)
    }

    @Test(arguments: [
        ("location: 'http://dav.example.org/' is plain http, which would send the password unencrypted; use https://.",
         ["calendar", "add", "http://dav.example.org/", "--user", "alice"],
         "'http://dav.example.org/' is plain http, which would send the password unencrypted; use https://."),
        ("location: https://x.org/ answered PROPFIND with HTTP 404; it is not a CalDAV server.", ["calendar", "add", "https://x.org/", "--user", "a"],
         "URL: https://x.org/ answered PROPFIND with HTTP 404; it is not a CalDAV server."),
        ("location: '/tmp/x' is followed already, as x.", ["calendar", "add", "--vdir", "/tmp/x"], "--vdir '/tmp/x' is followed already, as x."),
        ("ca: '/etc/ca.pem' cannot be read: Permission denied.", ["calendar", "add", "https://x.org/", "--user", "a", "--ca", "/etc/ca.pem"],
         "--ca '/etc/ca.pem' cannot be read: Permission denied."),
        ("interval: expected seconds from 5 to a week.", ["calendar", "add", "https://x.org/", "--user", "a", "--interval", "3"],
         "--interval '3': expected seconds from 5 to a week."),
        ("passwordCommand: it is empty.", ["calendar", "add", "https://x.org/", "--user", "a", "--password-command", " "],
         "--password-command ' ': it is empty."),
    ])
    func aCalendarsKeyBecomesItsOption(message: String, arguments: [String], expected: String) {
        #expect(Self.said(message, arguments) == expected)
    }
}
