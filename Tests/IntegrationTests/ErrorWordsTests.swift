import Foundation
import Testing
import TestSupport

/// A user's mistake, said back in the words the user typed: the option as written and the
/// word that could not be read, never chimed's D-Bus key or method, with a fix for the
/// common slips. D-Bus callers still see the keys.
@Suite(.timeLimit(.minutes(10)))
struct ErrorWordsTests {
    /// A command line with a mistake, the exit status and the one line chime must print,
    /// and what it must not say (the key or method chimed names, or the word wrongly blamed).
    struct Mistake: CustomTestStringConvertible, Sendable {
        let arguments: [String]
        let status: Int32
        let stderr: String
        let notSaying: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let mistakes: [Mistake] = [
        Mistake(arguments: ["add", "Tea", "--in", "1h", "--late-limit", "soon"], status: 64,
                stderr: "chime: --late-limit 'soon' is not a duration; use 20m, 1h30m, 90s, 2d or 1w.\n", notSaying: ["lateLimit"]),
        Mistake(arguments: ["add", "Tea", "--in", "0"], status: 64,
                stderr: "chime: --in '0' is not a duration: 0 has no unit; use s, m, h, d or w.\n", notSaying: ["at:"]),
        Mistake(arguments: ["next", "9:00", "-n", "0"], status: 64,
                stderr: "chime: -n must be between 1 and 1000, not 0. See 'chime next --help'.\n", notSaying: ["count"]),
        Mistake(arguments: ["add", "Water", "--at", "8:00", "--every", "3"], status: 64,
                stderr: "chime: --every 3 needs --repeat to say every 3 of what, as in --repeat day --every 3.\n",
                notSaying: ["every:", "needs repeat", "30"]),
        Mistake(arguments: ["add", "Shop", "--near", "52.52,13.405", "--radius", "200km"], status: 64,
                stderr: "chime: --radius '200km' is more than 100km, the largest circle Chime watches. See 'chime add --help'.\n",
                notSaying: ["region", "200000"]),
        Mistake(arguments: ["notify", "-r", "nosuch", "Copying"], status: 64,
                stderr: "chime: -r 'nosuch' is neither an id chime notify -p printed nor a server id (a whole number). See 'chime notify --help'.\n",
                notSaying: ["PresentNow", "replaces"]),
        Mistake(arguments: ["add", "Bins", "--at", "tomorrow morning"], status: 64,
                stderr: "chime: --at 'tomorrow morning' is not a time: 'morning' is not understood; give a clock time, as in 'tomorrow 9:00'.\n",
                notSaying: ["'tomorrow' is not understood", "at:"]),
        Mistake(arguments: ["add", "Bins", "--at", "tomorow"], status: 64,
                stderr: "chime: --at 'tomorow' is not a time: 'tomorow' is not understood; did you mean 'tomorrow'?\n", notSaying: ["at:"]),
        Mistake(arguments: ["add", "Tick", "--in", "1h", "--rrule", "FREQ=SECONDLY"], status: 64,
                stderr: "chime: --rrule 'FREQ=SECONDLY' is not a frequency Chime repeats by; use FREQ=MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY or YEARLY.\n",
                notSaying: ["needs FREQ", "rrule:"]),
        Mistake(arguments: ["add", "Standup", "--at", "9:30", "--repeat", "weekdays"], status: 64,
                stderr: "chime: --repeat 'weekdays' is not a unit of time; did you mean --repeat week --on weekdays?\n", notSaying: ["repeat:"]),
        Mistake(arguments: ["add", "Payday", "--at", "9:30", "--repeat", "biweekly"], status: 64,
                stderr: "chime: --repeat 'biweekly' is not a unit of time; did you mean --every 2 --repeat week?\n", notSaying: ["repeat:"]),
        Mistake(arguments: ["lsit"], status: 64,
                stderr: "chime: Unknown command 'lsit'. Did you mean 'list'? See 'chime --help'.\n", notSaying: ["Unexpected argument"]),
        Mistake(arguments: ["help", "nosuch"], status: 64, stderr: "chime: Unknown command 'nosuch'. See 'chime --help'.\n", notSaying: ["OVERVIEW"]),
    ]

    @Test(arguments: mistakes)
    func aMistakeIsOneSentenceInTheWordsTyped(mistake: Mistake) throws {
        let session = try TestSession()
        let result = try session.run(["chime"] + mistake.arguments)
        #expect(result.status == mistake.status, "\(result)")
        #expect(result.stderr == mistake.stderr, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        for word in mistake.notSaying { #expect(!result.stderr.contains(word), "\(word): \(result)") }
        #expect(try session.run(["chime", "list", "--json"]).stdout == "[]\n", "a refused command schedules nothing")
    }

    /// chimed's sentence sends a D-Bus caller to Update; a user is sent to chime edit.
    @Test func snoozingAScheduledOneSaysToEditIt() throws {
        let session = try TestSession()
        let id = try session.add("Later", "--in", "2h")
        let result = try session.run(["chime", "snooze", id, "10m"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr == "chime: Notification '\(id)' is not on screen, so there is nothing to snooze; chime edit \(id) --in 10m moves a scheduled one.\n",
                "\(result)")
        #expect(!result.stderr.contains("Update"), "\(result)")
    }

    /// A file cut short has its BEGIN:VCALENDAR: what it holds is read, and the sentence names
    /// the line it lacks, whatever the file's size.
    @Test func anICalendarFileCutShortIsSaidToLackItsEnd() throws {
        let session = try TestSession()
        let file = session.directory.appendingPathComponent("cut.ics")
        try "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//y//EN\r\nBEGIN:VEVENT\r\nUID:cut@example.org\r\nDTSTART:20301224T180000Z\r\nSUMMARY:Presents\r\nEND:VEVENT\r\n"
            .write(to: file, atomically: true, encoding: .utf8)
        let result = try session.run(["chime", "import", file.path])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("Presents"), "\(result)")
        #expect(result.stderr == "chime: '\(file.path)' has no END:VCALENDAR, so it may be cut short; what came before its end was read.\n",
                "\(result)")
        #expect(!result.stderr.contains("BEGIN"), "\(result)")
    }

    /// The keys stay in chimed's answers to bus callers, with the right word blamed.
    @Test func busCallersStillSeeTheKeys() throws {
        let session = try TestSession()
        let late = try session.callScheduler("ScheduleSimple", "in 1h", "Tea", "", "{'lateLimit': 'soon'}")
        #expect(late.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: lateLimit: 'soon' is not a duration"), "\(late)")
        let morning = try session.callScheduler("ScheduleSimple", "tomorrow morning", "Bins", "", "{}")
        #expect(morning.stderr.contains("InvalidArgs: when: 'tomorrow morning' is not a time: 'morning' is not understood; give a clock time, as in 'tomorrow 9:00'."),
                "\(morning)")
        let every = try session.callScheduler("ScheduleSimple", "in 1h", "Water", "", "{'every': '3'}")
        #expect(every.stderr.contains("InvalidArgs: every: needs repeat: every 3 of which unit?"), "\(every)")
        let cut = try session.callScheduler("ImportICalendar", "BEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:a\nDTSTART:20301224T180000Z\nEND:VEVENT\n")
        #expect(cut.stderr.contains("InvalidArgs: text: not iCalendar: it has no END:VCALENDAR, so it may be cut short."), "\(cut)")
    }
}
