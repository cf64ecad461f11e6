import Foundation

/// Radicale on 127.0.0.1, on a port it picks, with one user whose password is stored in
/// plain text; its storage is in `directory`. Stopped when the test drops it.
public final class Radicale {
    public let process: Spawned
    /// `http://127.0.0.1:PORT/`, the server's root.
    public let url: String
    public let user: String, password: String

    public init(directory: URL, user: String, password: String) throws {
        self.user = user
        self.password = password
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let users = directory.appendingPathComponent("users")
        try "\(user):\(password)\n".write(to: users, atomically: true, encoding: .utf8)
        // --config "" leaves out Debian's /etc/radicale/config (TLS and remote_user auth);
        // port 0 lets the kernel choose, and the log says which.
        process = try Spawned(["/usr/bin/python3", "-m", "radicale", "--config", "", "--logging-level", "info",
                               "--server-hosts", "127.0.0.1:0", "--auth-type", "htpasswd",
                               "--auth-htpasswd-filename", users.path, "--auth-htpasswd-encryption", "plain",
                               "--storage-filesystem-folder", directory.appendingPathComponent("storage").path],
                              environment: ProcessInfo.processInfo.environment)
        guard process.stderr.wait(timeout: 60, until: { $0.contains("Radicale server ready") }),
              let port = process.stderr.text.firstMatch(of: /Listening on '\[127\.0\.0\.1\]:(\d+)'/)?.1 else {
            throw TestFailure.failed("Radicale did not start: \(process.stderr.text)")
        }
        url = "http://127.0.0.1:\(port)/"
    }

    deinit { process.stop() }

    /// The body of `path`, fetched as the user.
    public func get(_ path: String) throws -> String {
        let result = try Spawned(["curl", "--silent", "--fail", "--user", "\(user):\(password)", url + path],
                                 environment: ProcessInfo.processInfo.environment).finish()
        guard result.status == 0 else { throw TestFailure.failed("curl GET \(path): \(result)") }
        return result.stdout
    }

    /// Sends one request as the user, as another device would, and answers the HTTP status.
    @discardableResult
    public func request(_ method: String, _ path: String, body: String? = nil) throws -> Int {
        var arguments = ["curl", "--silent", "--output", "/dev/null", "--write-out", "%{http_code}", "--user", "\(user):\(password)",
                         "--request", method, url + path]
        if body != nil { arguments += ["--header", "Content-Type: text/calendar", "--data-binary", "@-"] }
        let result = try Spawned(arguments, environment: ProcessInfo.processInfo.environment, stdin: body).finish()
        guard result.status == 0, let status = Int(result.stdout) else { throw TestFailure.failed("curl \(method) \(path): \(result)") }
        return status
    }
}
