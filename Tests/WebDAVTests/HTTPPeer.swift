import EventLoop
import Foundation
import TestSupport
import Testing
@testable import WebDAV

/// The test's HTTP server: Tests/servers/http-peer.py in a process of its own, on a port it picks, with
/// what it received readable as it arrives. Stopped when the test drops it.
final class HTTPPeer {
    let process: Spawned
    let host: String
    let port: Int
    let scheme: String

    /// The server's address, without a slash at the end.
    var url: String { "\(scheme)://\(host):\(port)" }

    init(host: String = "127.0.0.1", tls: (certificate: String, key: String)? = nil) throws {
        let script = packageRoot.appendingPathComponent("Tests/servers/http-peer.py").path
        var arguments = ["/usr/bin/python3", "-u", script, "--host", host]
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        process = try Spawned(arguments, environment: ProcessInfo.processInfo.environment)
        guard process.stdout.wait(timeout: 60, until: { $0.contains("\n") }),
              let port = process.stdout.text.firstMatch(of: /^PORT (\d+)\n/)?.1, let number = Int(port) else {
            throw TestFailure.failed("http-peer.py did not start: \(process.stderr.text)")
        }
        self.host = host
        self.port = number
        scheme = tls == nil ? "http" : "https"
    }

    deinit { process.stop() }

    /// One request as the server saw it.
    struct Seen {
        let method: String
        let path: String
        let headers: [String: String]
        let bodyLength: Int
        let clientPort: Int
    }

    /// The requests the server has received so far, in order.
    var requests: [Seen] {
        process.stdout.text.split(separator: "\n").dropFirst().compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Seen(method: object["method"] as? String ?? "", path: object["path"] as? String ?? "",
                        headers: object["headers"] as? [String: String] ?? [:],
                        bodyLength: object["body_length"] as? Int ?? -1, clientPort: object["client_port"] as? Int ?? -1)
        }
    }

    /// Waits until the server has received `count` requests.
    func waitForRequests(_ count: Int, timeout: TimeInterval = 60) throws {
        guard process.stdout.wait(timeout: timeout, until: { $0.split(separator: "\n").count > count }) else {
            throw TestFailure.timeout("\(count) requests at \(url); it saw \(requests.map(\.path))")
        }
    }
}

/// Runs `loop` until `condition` holds, failing after `timeout` seconds.
func run(_ loop: EventLoop, timeout: TimeInterval = 60, until condition: () -> Bool) throws {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while !condition() {
        guard Date() < deadline else { throw TestFailure.timeout("the loop ran \(timeout) s without the awaited event") }
        try loop.runOnce(timeoutMilliseconds: 100)
    }
}

/// Sends `request` and runs `loop` until it has finished.
func exchange(_ client: HTTPClient, on loop: EventLoop, _ request: HTTPRequest, timeout: TimeInterval = 60) throws -> Result<HTTPResponse, HTTPFailure> {
    var result: Result<HTTPResponse, HTTPFailure>?
    client.send(request) { result = $0 }
    try run(loop, timeout: timeout) { result != nil }
    return try #require(result)
}

extension Result {
    /// The failure, or nil for a success.
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
