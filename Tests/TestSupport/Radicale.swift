import Foundation

/// Radicale on 127.0.0.1, on a port it picks (or `port`), with one user whose password is
/// stored in plain text; its storage is in `directory`. With `tls`, it serves https with
/// that certificate and key. Stopped when the test drops it; ``stop()`` and ``start()``
/// take it down and up again on the same port, as a server that goes away and comes back.
public final class Radicale {
    public private(set) var process: Spawned
    /// `http://127.0.0.1:PORT/` (https with `tls`), the server's root.
    public let url: String
    public let user: String, password: String
    public let port: Int
    /// The certificate curl trusts, when it serves https.
    public let certificate: URL?
    /// The folder of its collections: `storage/collection-root/USER/NAME/`.
    public let storage: URL
    private let arguments: [String]

    public init(directory: URL, user: String, password: String, port: Int = 0, tls: (certificate: URL, key: URL)? = nil) throws {
        self.user = user
        self.password = password
        certificate = tls?.certificate
        storage = directory.appendingPathComponent("storage")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let users = directory.appendingPathComponent("users")
        try "\(user):\(password)\n".write(to: users, atomically: true, encoding: .utf8)
        // --config "" leaves out Debian's /etc/radicale/config (TLS and remote_user auth);
        // port 0 lets the kernel choose, and the log says which.
        var arguments = ["/usr/bin/python3", "-m", "radicale", "--config", "", "--logging-level", "info",
                         "--auth-type", "htpasswd", "--auth-htpasswd-filename", users.path, "--auth-htpasswd-encryption", "plain",
                         "--storage-filesystem-folder", storage.path]
        if let tls { arguments += ["--ssl", "--certificate", tls.certificate.path, "--key", tls.key.path] }
        self.arguments = arguments
        process = try Self.spawn(arguments, port: port)
        guard let chosen = process.stderr.text.firstMatch(of: /Listening on '\[127\.0\.0\.1\]:(\d+)'/).flatMap({ Int($0.1) }) else {
            throw TestFailure.failed("Radicale names no port: \(process.stderr.text)")
        }
        self.port = chosen
        url = "\(tls == nil ? "http" : "https")://127.0.0.1:\(chosen)/"
    }

    private static func spawn(_ arguments: [String], port: Int) throws -> Spawned {
        let process = try Spawned(arguments + ["--server-hosts", "127.0.0.1:\(port)"], environment: ProcessInfo.processInfo.environment)
        guard process.stderr.wait(timeout: 60, until: { $0.contains("Radicale server ready") }) else {
            throw TestFailure.failed("Radicale did not start: \(process.stderr.text)")
        }
        return process
    }

    /// Kills it (SIGKILL, as a crash or a pulled cable: no goodbye to a client mid-request).
    public func stop() { process.stop() }

    /// Starts it again on the same port and storage.
    public func start() throws {
        process.stop()
        process = try Self.spawn(arguments, port: port)
    }

    /// What curl needs to trust the server.
    private var trust: [String] { certificate.map { ["--cacert", $0.path] } ?? [] }

    deinit { process.stop() }

    /// The body of `path`, fetched as the user.
    public func get(_ path: String) throws -> String {
        let result = try Spawned(["curl", "--silent", "--fail", "--user", "\(user):\(password)"] + trust + [url + path],
                                 environment: ProcessInfo.processInfo.environment).finish()
        guard result.status == 0 else { throw TestFailure.failed("curl GET \(path): \(result)") }
        return result.stdout
    }

    /// Sends one request as the user, as another device would, and answers the HTTP status.
    @discardableResult
    public func request(_ method: String, _ path: String, body: String? = nil) throws -> Int {
        var arguments = ["curl", "--silent", "--output", "/dev/null", "--write-out", "%{http_code}", "--user", "\(user):\(password)",
                         "--request", method, url + path] + trust
        if body != nil { arguments += ["--header", "Content-Type: text/calendar", "--data-binary", "@-"] }
        let result = try Spawned(arguments, environment: ProcessInfo.processInfo.environment, stdin: body).finish()
        guard result.status == 0, let status = Int(result.stdout) else { throw TestFailure.failed("curl \(method) \(path): \(result)") }
        return status
    }
}
