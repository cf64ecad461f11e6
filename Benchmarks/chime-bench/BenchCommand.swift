import Glibc

/// `chime-bench`: load generators for `scripts/bench.sh`. Figures go to standard
/// output in one line each; any failure is one line on standard error and status 1
/// (2 for a usage error), so the script can tell a slow daemon from a broken one.
enum BenchCommand {
    static let usage = """
        usage: chime-bench schedule --count N --window W --when WHEN [--prefix P]
               chime-bench lateness --count K --spread S [--window W] [--grace G] [--peer COMMAND]
               chime-bench presses --count N --action KEY [--output FILE]
               chime-bench activate --name NAME[,NAME…] --count N
               chime-bench ping [--rounds N]
               chime-bench front --count N
               chime-bench place --via geoclue|networkmanager [--crossings N]

        schedule  sends N ScheduleSimple calls to chimed, W in flight at once,
                  and waits for every reply (each one means the row is committed).
        lateness  watches the bus for Notify calls, schedules K notifications due at whole
                  seconds over the next S seconds, and reports how late each Notify was sent
                  (waits at most G seconds, default 5, after the last due time). With --peer,
                  COMMAND sends the same Notify calls instead of chimed: it reads "DUE COUNT"
                  lines on standard input (the floor program, Benchmarks/lateness/notify-at.c).

        presses   plays the notification server (stop the other one first), shows N notifications
                  of category bench, presses KEY on each and reports the time to its effect:
                  the command starting (it appends "ID SECONDS" to FILE), or without --output
                  the daemon having committed the change (a Ping answered after its signal).

        activate  N times: stops NAME's owner, then times a Ping to NAME, which the bus
                  answers by starting the service from its activation file. Several NAMEs
                  take turns, one activation each per round; one line for each.

        ping      times Pings to chimed, first alone, then N times (default 20) right behind a
                  Schedule call at every documented limit.

        front     plays the notification server (stop the other one first) and an app in front
                  (io.github.chime.Presenter1), and times PresentNow to Notify N times each for
                  no app, an app not running, and the app in front: the WillPresent round trip.

        place     plays GeoClue2 or NetworkManager on the (private) system bus, schedules a place
                  notification firing at every crossing, crosses N times (default 100) and reports
                  the time from each change sent to its Notify on the bus; cancels it at the end.

        W defaults to \(SchedulePipeline.defaultWindow): dbus-daemon's built-in limit of pending replies
        per connection, in force on a bus whose configuration does not raise it.
        """

    static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else { return usageError("a subcommand is missing") }
        do {
            let options = try Options(arguments.dropFirst())
            switch command {
            case "schedule":
                try ScheduleCommand(options).run()
            case "lateness":
                try LatenessCommand(options).run()
            case "presses":
                try PressesCommand(options).run()
            case "activate":
                try ActivateCommand(options).run()
            case "ping":
                try PingCommand(options).run()
            case "front":
                try FrontCommand(options).run()
            case "place":
                try PlaceCommand(options).run()
            case "-h", "--help":
                print(usage)
            default:
                return usageError("unknown subcommand '\(command)'")
            }
            return 0
        } catch let error as UsageError {
            return usageError(error.message)
        } catch {
            writeError("chime-bench \(command): \(error)")
            return 1
        }
    }

    private static func usageError(_ message: String) -> Int32 {
        writeError("chime-bench: \(message)\n\(usage)")
        return 2
    }
}

struct UsageError: Error {
    let message: String
}

/// A failure of the daemon or the bus while measuring.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `--name value` pairs, each name at most once.
struct Options {
    private var values: [String: String] = [:]

    init(_ arguments: ArraySlice<String>) throws(UsageError) {
        var rest = arguments[...]
        while let name = rest.popFirst() {
            guard name.hasPrefix("--"), name.count > 2 else { throw UsageError(message: "unexpected argument '\(name)'") }
            guard let value = rest.popFirst() else { throw UsageError(message: "\(name) needs a value") }
            guard values[name] == nil else { throw UsageError(message: "\(name) is given twice") }
            values[name] = value
        }
    }

    /// Fails on any option not in `names`, so a typo is not silently ignored.
    func check(allowed names: Set<String>) throws(UsageError) {
        if let unknown = values.keys.sorted().first(where: { !names.contains($0) }) {
            throw UsageError(message: "unknown option '\(unknown)'")
        }
    }

    /// The value of an optional option without a default.
    func optional(_ name: String) -> String? { values[name] }

    func string(_ name: String, default fallback: String? = nil) throws(UsageError) -> String {
        guard let value = values[name] ?? fallback else { throw UsageError(message: "\(name) is required") }
        return value
    }

    func positiveInt(_ name: String, default fallback: Int? = nil) throws(UsageError) -> Int {
        guard let text = values[name] else {
            guard let fallback else { throw UsageError(message: "\(name) is required") }
            return fallback
        }
        guard let value = Int(text), value > 0 else { throw UsageError(message: "\(name) must be a whole number above 0, not '\(text)'") }
        return value
    }
}

func writeError(_ line: String) {
    var text = line
    if !text.hasSuffix("\n") { text += "\n" }
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
