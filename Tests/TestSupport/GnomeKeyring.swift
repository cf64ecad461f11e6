import Foundation

/// gnome-keyring-daemon as the Secret Service of a test's session bus, with a login
/// keyring of its own (made and unlocked by the password on its standard input) in the
/// test's folder, never the user's. Stopped when the test drops it.
public final class GnomeKeyring {
    private let process: Spawned
    private let session: TestSession

    /// Starts it on `session`'s bus and waits until it owns `org.freedesktop.secrets`.
    public init(session: TestSession) throws {
        self.session = session
        var environment = session.environment
        for (name, folder) in [("HOME", "keyring-home"), ("XDG_DATA_HOME", "keyring-data"), ("XDG_RUNTIME_DIR", "keyring-run")] {
            let path = session.directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[name] = path.path
        }
        process = try Spawned(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                              environment: environment, stdin: "keyring password")
        try session.waitForName("org.freedesktop.secrets")
    }

    deinit { process.stop() }

    /// `secret-tool ARGUMENTS…` on the session's bus, as a user would run it.
    public func secretTool(_ arguments: String..., stdin: String? = nil) throws -> ProcessResult {
        try session.run(["secret-tool"] + arguments, stdin: stdin)
    }
}
