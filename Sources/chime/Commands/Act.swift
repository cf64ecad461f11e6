import ArgumentParser
import ChimeAPI
import DBus
import Localization

/// `chime act`: press a notification's button from the command line.
struct Act: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a notification's action as if its button were pressed.",
        discussion: """
            For notification servers that show no buttons, and for scripts. chime says \
            which button it pressed. A button that puts a reminder off (Remind) is \
            refused (status 1) before the reminder has fired: chime edit moves it.

            Example:
              chime act 3kq9xw2m complete
            """
    )

    @ArgumentParser.Argument(help: "The notification's id.")
    var id: String

    @ArgumentParser.Argument(help: "The action key, such as complete or remind.")
    var action: String

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        do throws(DBusError) {
            _ = try client.call(Scheduler1.invokeAction, [.string(id), .string(action)])
        } catch where error.name == ChimeError.notShown {
            throw fail(localized("%1$s has not fired yet, so %2$s has nothing to put off; to move it, use chime edit %1$s --at TIME.",
                                 id, action), ExitStatus.failure)
        } catch {
            throw client.failure(error, calling: Scheduler1.invokeAction, about: id)
        }
        print(localized("Pressed %1$s on %2$s.", action, id))
    }
}
