import ArgumentParser
import JSON

/// `chime doctor`: why notifications do not show, and what to do about it.
struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the session bus, chimed and the notification server, without starting anything.",
        discussion: """
            Says which bus chime uses, whether chimed runs (its version, store and its \
            last backup, schedule and the notification server it follows, and what it \
            recovered if it found its store damaged), the config file it read (its \
            categories, app settings and each error, by file and line), who shows \
            notifications and what Chime does for each capability that server lacks, \
            whether a dock shows badges, and each calendar chimed follows (its state, and \
            a warning for each file it cannot read and each folder that is gone). Nothing \
            is started: a chimed that is not running stays so.

            Healthy means a notification sent now reaches the screen: chimed runs or the \
            bus can start it, and a notification server runs or the bus can start one. \
            Warnings (chimed not running yet, two notification servers registered, \
            DBUS_SESSION_BUS_ADDRESS unset) leave it healthy; an error in the config does \
            not, since what it names does not work until the file is fixed.

            EXIT STATUS
              0   healthy, perhaps with warnings
              1   unhealthy: the problems are listed
              69  no session bus

            Examples:
              chime doctor
              chime doctor --json | jq .chimed.scheduled
            """
    )

    @Flag(help: "Print JSON with the keys healthy, exitStatus, problems, warnings, bus, chimed, config, notificationServer, badges, places and calendars (each as chime calendar list --json describes it).")
    var json = false

    func run() throws {
        let diagnosis = Diagnosis.run()
        print(json ? diagnosis.json.rendered() : diagnosis.report)
        if diagnosis.exitStatus != 0 { throw ExitCode(diagnosis.exitStatus) }
    }
}
