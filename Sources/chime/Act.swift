import ArgumentParser

/// `chime act`: press a notification's button from the command line.
struct Act: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a notification's action as if its button were pressed.",
        discussion: """
            For notification servers that show no buttons, and for scripts.

            Example:
              chime act 3kq9xw2m complete
            """
    )

    @ArgumentParser.Argument(help: "The notification's id.")
    var id: String

    @ArgumentParser.Argument(help: "The action key, such as complete or remind.")
    var action: String

    func run() throws {
        try SchedulerClient.connectOrFail().invokeAction(id, action)
    }
}
