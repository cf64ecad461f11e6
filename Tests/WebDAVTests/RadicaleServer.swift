import Foundation
import TestSupport

/// Radicale (Debian's, 3.1.8) on 127.0.0.1, on a port it picks, with one user whose password
/// is stored in plain text, its storage in a folder of its own; stopped and removed when the
/// test drops it. curl sends the requests, as a client nobody here wrote would.
final class RadicaleServer {
    let process: Spawned
    let directory: URL
    let url: String
    let user = "alice", password = "secret"

    /// What one request brought back.
    struct Answer {
        let status: Int
        let body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("chime-radicale-\(UUID().uuidString)")
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
        url = "http://127.0.0.1:\(port)"
    }

    deinit {
        process.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends `method` to `path` (written into the URL as given) as the user, with `body` and
    /// `headers`, and brings back the status and body.
    func send(_ method: String, _ path: String, headers: [String] = [], body: [UInt8]? = nil) throws -> Answer {
        let output = directory.appendingPathComponent("answer-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        var arguments = ["curl", "--silent", "--show-error", "--user", "\(user):\(password)", "--request", method,
                         "--output", output.path, "--write-out", "%{http_code}"]
        arguments += headers.flatMap { ["--header", $0] }
        if body != nil { arguments += ["--data-binary", "@-"] }
        arguments.append(url + path)
        let result = try Spawned(arguments, environment: ProcessInfo.processInfo.environment,
                                 stdin: body.map { String(decoding: $0, as: UTF8.self) }).finish()
        guard result.status == 0, let status = Int(result.stdout) else { throw TestFailure.failed("curl \(method) \(path): \(result)") }
        let answer = (try? Data(contentsOf: output)).map { [UInt8]($0) } ?? []
        return Answer(status: status, body: answer)
    }

    /// PROPFIND or REPORT with an XML body and a Depth.
    func ask(_ method: String, _ path: String, depth: Int, _ body: [UInt8]) throws -> Answer {
        try send(method, path, headers: ["Depth: \(depth)", "Content-Type: application/xml; charset=utf-8"], body: body)
    }

    /// Stores `text` as the iCalendar object at `path`.
    func put(_ path: String, _ text: String) throws -> Int {
        try send("PUT", path, headers: ["Content-Type: text/calendar; charset=utf-8"], body: Array(text.utf8)).status
    }

    /// An event with `uid` and `summary`, CRLF line ends as RFC 5545 asks.
    static func event(_ uid: String, _ summary: String) -> String {
        ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime tests//EN", "BEGIN:VEVENT", "UID:\(uid)",
         "DTSTAMP:20260101T000000Z", "DTSTART:20301201T100000Z", "SUMMARY:\(summary)", "END:VEVENT", "END:VCALENDAR", ""]
            .joined(separator: "\r\n")
    }
}
