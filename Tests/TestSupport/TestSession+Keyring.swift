import Foundation

extension TestSession {
    /// Starts gnome-keyring-daemon on this session's bus, a Secret Service for chimed to
    /// keep CalDAV passwords in: its login keyring is made and unlocked by the password on
    /// its standard input, in folders of the test's own. Stopped when the caller drops it.
    public func startKeyring() throws -> Spawned {
        var environment = self.environment
        for (name, folder) in [("HOME", "keyring-home"), ("XDG_DATA_HOME", "keyring-data"), ("XDG_RUNTIME_DIR", "keyring-run")] {
            let path = directory.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment[name] = path.path
        }
        let keyring = try Spawned(["gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets"],
                                  environment: environment, stdin: "keyring password")
        try waitForName("org.freedesktop.secrets")
        return keyring
    }
}
