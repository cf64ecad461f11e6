import ArgumentParser
import ChimeAPI

struct Chime: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chime",
        abstract: "Desktop notifications and reminders whose buttons keep working, through the chimed daemon.",
        discussion: """
            chime is a thin client: chimed (started by D-Bus activation when it is not \
            running) shows the notifications and hears their buttons, even after chime exits.

            Commands that print data take --json; chime COMMAND --help names its keys. Each \
            prints one JSON document, indented two spaces as jq prints it: an array for \
            lists, an object otherwise. Times for people read "today 09:00", "tomorrow \
            09:00", "Tue 1 Dec 09:00", in the locale's format (LC_TIME); --json gives Unix \
            seconds and ISO 8601.

            Examples:
              chime notify "Backup done"
              chime add "Stand up" --in 45m --category reminder
              chime log --limit 10

            EXIT STATUS
              0   success; for doctor: healthy
              1   chimed refused or failed the request (an id that does not exist, say); \
            for doctor: unhealthy
              64  usage error: an unknown command or option, a malformed or invalid \
            value (the error names it as it was typed)
              65  import: the file is not iCalendar
              66  import: the file cannot be read
              69  unavailable: no session bus, chimed could not be reached, or the running \
            chimed speaks another version of its D-Bus interface (restart it)
              75  calendar add, sync, password: a CalDAV calendar is followed, but its sync \
            failed (the server refused the password, or could not be reached)
            """,
        version: chimeVersion,
        subcommands: [Notify.self, Add.self, Edit.self, Snooze.self, List.self, Show.self, Cancel.self, Next.self, Skip.self, Act.self, Badge.self,
                      Log.self, Doctor.self, Import.self, Export.self, CalendarCommand.self]
    )
}
