import Foundation

// MARK: - Notifications that speak for an app, and the user's config

extension TestSession {
    /// Writes the user's config file chimed reads (at start and on SIGHUP).
    public func writeConfig(_ text: String) throws {
        let folder = directory.appendingPathComponent("config/chime")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    /// `PresentNow` through gdbus for the app `desktopEntry`, with the sound `bell` and
    /// the badge 4; returns the id.
    public func presentNow(_ title: String, desktopEntry: String) throws -> String {
        let result = try run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                              "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.PresentNow",
                              "{'title': <'\(title)'>, 'desktopEntry': <'\(desktopEntry)'>, 'sound': <'bell'>, 'badge': <4>}"])
        guard result.status == 0, let id = result.stdout.split(separator: "'").dropFirst().first else {
            throw TestFailure.failed("PresentNow: \(result)")
        }
        return String(id)
    }

    /// The app's badge as `chime badge` prints it.
    public func badge(of app: String) throws -> String {
        try run(["chime", "badge", "--app", app]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
