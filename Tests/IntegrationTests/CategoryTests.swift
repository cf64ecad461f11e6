import Foundation
import Glibc
import Testing
import TestSupport

/// A category a new request names must exist: built in, in the config, or one of the
/// notification specification's. chimed refuses any other, naming the key over D-Bus
/// and the option as typed on the command line; what is already stored is never refused.
@Suite(.timeLimit(.minutes(10)))
struct CategoryTests {
    static let known = "(known: reminder, todo; standard ones such as email.arrived are passed on to the server)"

    func session() throws -> TestSession {
        let session = try TestSession()
        try session.writeConfig("[Category todo]\nActions=complete;\n")
        return session
    }

    @Test func aMisspeltCategoryOnTheCommandLineIsRefusedWithAGuess() throws {
        let session = try session()
        let added = try session.run(["chime", "add", "Tea", "--in", "1h", "--category", "reminders"])
        #expect(added.status == 64, "\(added)")
        #expect(added.stderr == "chime: --category 'reminders' is neither built in nor in the config \(Self.known); "
            + "did you mean 'reminder'?\n", "\(added)")
        let shown = try session.run(["chime", "notify", "-c", "todos", "Tea"])
        #expect(shown.status == 64, "\(shown)")
        #expect(shown.stderr == "chime: -c 'todos' is neither built in nor in the config \(Self.known); did you mean 'todo'?\n",
                "\(shown)")
        let long = try session.run(["chime", "notify", "--category=work", "Tea"])
        #expect(long.status == 64, "\(long)")
        #expect(long.stderr == "chime: --category 'work' is neither built in nor in the config \(Self.known).\n", "\(long)")

        let id = try session.add("Tea", "--in", "1h", "--category", "todo")
        let edited = try session.run(["chime", "edit", id, "--category", "Reminder"])
        #expect(edited.status == 64, "\(edited)")
        #expect(edited.stderr.hasSuffix("; did you mean 'reminder'?\n"), "\(edited)")
        #expect(edited.stderr.hasPrefix("chime: --category 'Reminder' is neither built in"), "\(edited)")
        #expect(try session.listedIDs() == [id], "nothing refused was scheduled")
        #expect(try session.notifyCalls().isEmpty, "nothing refused was shown")
    }

    /// Every method that takes a category, in both forms, refuses an unknown one with
    /// InvalidArgs naming the key; the specification's own categories and a vendor's pass.
    @Test func everyMethodRefusesAnUnknownCategoryNamingTheKey() throws {
        let session = try session()
        let message = "category: 'reminders' is neither built in nor in the config \(Self.known); did you mean 'reminder'?"
        let typed = "{'title': <'Tea'>, 'category': <'reminders'>}"
        for (method, arguments) in [("PresentNow", [typed]), ("Schedule", ["{'title': <'Tea'>, 'when': <'in 1h'>, 'category': <'reminders'>}"])] {
            let result = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                          "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1." + method] + arguments)
            #expect(result.status != 0, "\(method): \(result)")
            #expect(result.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: \(message)"), "\(method): \(result)")
        }
        let simple: [(String, [String])] = [
            ("PresentNowSimple", ["string:Tea", "string:", "dict:string:string:category,reminders"]),
            ("ScheduleSimple", ["string:in 1h", "string:Tea", "string:", "dict:string:string:category,reminders"]),
        ]
        for (method, arguments) in simple {
            let result = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime",
                                          "/io/github/chime/Chime", "io.github.chime.Scheduler1." + method] + arguments)
            #expect(result.status != 0, "\(method): \(result)")
            #expect(result.stderr.contains("Error org.freedesktop.DBus.Error.InvalidArgs: \(message)"), "\(method): \(result)")
        }
        let id = try session.add("Tea", "--in", "1h")
        let update = try session.callScheduler("Update", id, "{'category': <'reminders'>}")
        #expect(update.stderr.contains("InvalidArgs: \(message)"), "\(update)")
        let updateSimple = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime",
                                            "/io/github/chime/Chime", "io.github.chime.Scheduler1.UpdateSimple", "string:\(id)",
                                            "dict:string:string:category,reminders"])
        #expect(updateSimple.stderr.contains("InvalidArgs: \(message)"), "\(updateSimple)")
        #expect(try session.listedIDs() == [id])

        for name in ["im.received", "x-org.example.build", "todo", "reminder"] {
            #expect(try session.callScheduler("PresentNow", "{'title': <'Fine'>, 'category': <'\(name)'>}").status == 0, "\(name)")
        }
    }

    /// A category the config defines with an error is refused with that error, so the
    /// user learns what to fix from the command that needed it.
    @Test func aCategoryLeftOutForItsErrorIsRefusedWithIt() throws {
        let session = try TestSession()
        try session.writeConfig("[Category todo]\nActions=complete;complete;\n")
        let result = try session.run(["chime", "notify", "-c", "todo", "Tea"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr == "chime: -c 'todo' has an error in the config, so it is not used: \(session.configFile.path):2: "
            + "[Category todo] Actions lists 'complete' twice.\n", "\(result)")
    }

    /// A stored reminder whose category the config has since lost is kept, may still be
    /// edited, and fires without those buttons; only a new request naming it is refused.
    @Test func aStoredReminderWhoseCategoryWentStillFires() throws {
        let session = try session()
        let id = try session.add("Invoice", "--in", "1h", "--category", "todo")
        try session.writeConfig("[Category work]\nActions=complete;\n")
        kill(try session.daemonPID(), SIGHUP)
        try session.waitForDaemonLog(containing: "2 categories, 0 app settings, 0 errors.")

        let refused = try session.run(["chime", "edit", id, "--category", "todo"])
        #expect(refused.status == 64, "\(refused)")
        #expect(refused.stderr.hasPrefix("chime: --category 'todo' is neither built in nor in the config (known: reminder, work;"),
                "\(refused)")
        let edited = try session.run(["chime", "edit", id, "--title", "Invoice due", "--in", "1s"])
        #expect(edited.status == 0, "\(edited)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Invoice due'>"), "\(call)")
        #expect(call.contains("'category': <'todo'>"), "\(call)")
        #expect(!call.contains("'complete'"), "the category's buttons went with it: \(call)")
    }
}
