@testable import EventLoop
import Foundation
import Glibc
import TestSupport
import Testing
@testable import WebDAV

/// HTTPClient against real servers: http-peer.py processes on 127.0.0.1 (and 127.0.0.2 for
/// "another host"), plain and with TLS, driven by an EventLoop as chimed drives it.
@Suite(.timeLimit(.minutes(5)))
struct HTTPClientTests {
    let loop = EventLoop()
    let client: HTTPClient

    init() {
        client = HTTPClient(loop: loop)
    }

    @Test func libcurlLoads() {
        #expect(HTTPClient.loadFailure() == nil)
    }

    // MARK: - Requests and answers

    @Test func getSendsHeaderFieldsAndReadsTheAnswersFields() throws {
        let peer = try HTTPPeer()
        let response = try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/echo", headers: [("X-Test", "hello")])).get()
        #expect(response.status == 200)
        #expect(response.header("X-Method") == "GET")
        #expect(response.header("x-test-seen") == "hello")
        #expect(response.headers["multi"] == "one, two")
        #expect(response.url == peer.url + "/echo")
        #expect(response.body.isEmpty)
        try peer.waitForRequests(1)
        let seen = try #require(peer.requests.first)
        #expect(seen.headers["accept-encoding"]?.contains("gzip") == true)
        #expect(seen.headers["authorization"] == nil)
    }

    @Test func putSendsItsBodyAndContentType() throws {
        let peer = try HTTPPeer()
        // Over a megabyte: libcurl asks with Expect: 100-continue first.
        let body = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let request = HTTPRequest(method: "PUT", url: peer.url + "/echo", headers: [("Content-Type", "text/calendar; charset=utf-8")], body: body)
        let response = try exchange(client, on: loop, request).get()
        #expect(response.status == 200)
        #expect(response.header("x-method") == "PUT")
        #expect(response.header("content-type") == "text/calendar; charset=utf-8")
        #expect(response.body == body)
        try peer.waitForRequests(1)
        #expect(peer.requests.last?.bodyLength == body.count)
    }

    @Test func propfindSendsItsBodyAndHeaderFields() throws {
        let peer = try HTTPPeer()
        let xml = Array(#"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getetag/></prop></propfind>"#.utf8)
        let request = HTTPRequest(method: "PROPFIND", url: peer.url + "/echo", headers: [("Depth", "1"), ("Content-Type", "application/xml")], body: xml)
        let response = try exchange(client, on: loop, request).get()
        #expect(response.header("x-method") == "PROPFIND")
        #expect(response.body == xml)
        try peer.waitForRequests(1)
        let seen = try #require(peer.requests.first)
        #expect(seen.method == "PROPFIND")
        #expect(seen.headers["depth"] == "1")
        #expect(seen.headers["content-type"] == "application/xml")
    }

    @Test func aBodyWithoutContentTypeIsNotLabelledAsAForm() throws {
        let peer = try HTTPPeer()
        _ = try exchange(client, on: loop, HTTPRequest(method: "REPORT", url: peer.url + "/echo", body: Array("x".utf8))).get()
        try peer.waitForRequests(1)
        #expect(peer.requests.first?.headers["content-type"] == nil)
    }

    @Test func deleteAndHeadWork() throws {
        let peer = try HTTPPeer()
        let deleted = try exchange(client, on: loop, HTTPRequest(method: "DELETE", url: peer.url + "/status?code=204")).get()
        #expect(deleted.status == 204)
        let head = try exchange(client, on: loop, HTTPRequest(method: "HEAD", url: peer.url + "/echo")).get()
        #expect(head.status == 200)
        try peer.waitForRequests(2)
        #expect(peer.requests.map(\.method) == ["DELETE", "HEAD"])
    }

    @Test func theConnectionIsReusedForTheNextRequest() throws {
        let peer = try HTTPPeer()
        for _ in 0..<3 {
            _ = try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/echo")).get()
        }
        try peer.waitForRequests(3)
        let ports = peer.requests.map(\.clientPort)
        #expect(ports.count == 3)
        #expect(Set(ports).count == 1)
    }

    @Test func twentyConcurrentRequestsAllComplete() throws {
        let peer = try HTTPPeer()
        var statuses: [Int] = []
        for index in 0..<20 {
            client.send(HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=0.5&n=\(index)")) { result in
                statuses.append((try? result.get().status) ?? -1)
            }
        }
        #expect(client.transfers == 20)
        try run(loop) { statuses.count == 20 }
        #expect(statuses == Array(repeating: 200, count: 20))
        #expect(client.transfers == 0)
    }

    // MARK: - Credentials

    @Test func basicCredentialsGoWithTheFirstRequest() throws {
        let peer = try HTTPPeer()
        let request = HTTPRequest(method: "GET", url: peer.url + "/basic", user: "alice", password: "secret")
        let response = try exchange(client, on: loop, request).get()
        #expect(response.status == 200)
        try peer.waitForRequests(1)
        #expect(peer.requests.count == 1)
        #expect(peer.requests.first?.headers["authorization"] == "Basic YWxpY2U6c2VjcmV0")
    }

    @Test func wrongCredentialsAnswer401() throws {
        let peer = try HTTPPeer()
        let request = HTTPRequest(method: "GET", url: peer.url + "/basic", user: "alice", password: "wrong")
        #expect(try exchange(client, on: loop, request).get().status == 401)
        try peer.waitForRequests(1)
        #expect(peer.requests.count == 1)
    }

    @Test func digestIsNegotiatedAndThenUsedFirst() throws {
        let peer = try HTTPPeer()
        let request = HTTPRequest(method: "GET", url: peer.url + "/digest", user: "alice", password: "secret")
        #expect(try exchange(client, on: loop, request).get().status == 200)
        // Basic, refused; Digest's first try, without credentials, learns the nonce; Digest.
        try peer.waitForRequests(3)
        #expect(peer.requests.map { $0.headers["authorization"]?.prefix(7) } == ["Basic Y", nil, "Digest "])

        #expect(try exchange(client, on: loop, request).get().status == 200)
        try peer.waitForRequests(5)
        #expect(peer.requests.dropFirst(3).map { $0.headers["authorization"]?.prefix(7) } == [nil, "Digest "])
    }

    @Test func digestAskedForSendsNoBasic() throws {
        let peer = try HTTPPeer()
        var request = HTTPRequest(method: "PUT", url: peer.url + "/digest", body: Array("BEGIN:VCALENDAR".utf8), user: "alice", password: "secret")
        request.auth = .digest
        #expect(try exchange(client, on: loop, request).get().status == 200)
        try peer.waitForRequests(2)
        #expect(!peer.requests.contains { $0.headers["authorization"]?.hasPrefix("Basic ") == true })
    }

    @Test func aPasswordIsNotSentOverPlainHTTPToAnotherMachine() throws {
        var result: Result<HTTPResponse, HTTPFailure>?
        client.send(HTTPRequest(method: "GET", url: "http://example.invalid/calendars/", user: "alice", password: "secret")) { result = $0 }
        #expect(result == nil, "done is called on the loop, not from inside send")
        try run(loop) { result != nil }
        let failure = try #require(result?.failure)
        #expect(failure.kind == .insecure)
        #expect(failure.description.contains("example.invalid"))
        #expect(failure.description.contains("https"))
        #expect(client.transfers == 0)
    }

    @Test func anAuthorizationFieldIsNotSentOverPlainHTTPToAnotherMachine() throws {
        let request = HTTPRequest(method: "GET", url: "http://example.invalid/", headers: [("authorization", "Bearer x")])
        #expect(try exchange(client, on: loop, request).failure?.kind == .insecure)
    }

    @Test func addressesThatAreNotHTTPAreRefused() throws {
        for url in ["ftp://127.0.0.1/", "file:///etc/passwd", "not an address", "http://alice:secret@127.0.0.1/"] {
            let failure = try #require(try exchange(client, on: loop, HTTPRequest(method: "GET", url: url)).failure)
            #expect(failure.kind == .failed, "\(url)")
            #expect(failure.description.contains(url))
        }
    }

    @Test func headerFieldsWithLineBreaksAreRefused() throws {
        let peer = try HTTPPeer()
        let request = HTTPRequest(method: "GET", url: peer.url + "/echo", headers: [("X-Test", "a\r\nX-Injected: b")])
        #expect(try exchange(client, on: loop, request).failure?.kind == .failed)
        #expect(try exchange(client, on: loop, HTTPRequest(method: "GET /x", url: peer.url + "/echo")).failure?.kind == .failed)
        #expect(peer.requests.isEmpty)
    }

    // MARK: - Redirects

    @Test(arguments: ["/echo", "echo", "absolute"])
    func aRedirectOnTheSameServerIsFollowed(location: String) throws {
        let peer = try HTTPPeer()
        let to = location == "absolute" ? peer.url + "/echo" : location
        let request = HTTPRequest(method: "PROPFIND", url: peer.url + "/redirect?status=301&to=" + to, body: Array("<x/>".utf8), user: "alice", password: "secret")
        let response = try exchange(client, on: loop, request).get()
        #expect(response.status == 200)
        #expect(response.url == peer.url + "/echo")
        #expect(response.header("x-method") == "PROPFIND")
        #expect(response.body == Array("<x/>".utf8))
        try peer.waitForRequests(2)
        #expect(peer.requests.map(\.path) == ["/redirect?status=301&to=" + to, "/echo"])
        #expect(peer.requests.allSatisfy { $0.headers["authorization"] == "Basic YWxpY2U6c2VjcmV0" })
    }

    @Test func seeOtherFetchesWithGet() throws {
        let peer = try HTTPPeer()
        let request = HTTPRequest(method: "PUT", url: peer.url + "/redirect?to=/echo&status=303", body: Array("x".utf8))
        let response = try exchange(client, on: loop, request).get()
        #expect(response.header("x-method") == "GET")
        try peer.waitForRequests(2)
        #expect(peer.requests.last?.bodyLength == 0)
    }

    @Test(arguments: ["127.0.0.1", "127.0.0.2"])
    func aRedirectToAnotherServerIsNotFollowed(otherHost: String) throws {
        let peer = try HTTPPeer()
        let other = try HTTPPeer(host: otherHost)
        let target = other.url + "/basic"
        let request = HTTPRequest(method: "GET", url: peer.url + "/redirect?to=" + target, user: "alice", password: "secret")
        let failure = try #require(try exchange(client, on: loop, request).failure)
        #expect(failure.kind == .redirect)
        #expect(failure.description.contains(target))
        #expect(!failure.description.contains("secret"))
        #expect(other.requests.isEmpty)
    }

    @Test func redirectsEndAfterFive() throws {
        let peer = try HTTPPeer()
        let failure = try #require(try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/loop")).failure)
        #expect(failure.kind == .redirect)
        try peer.waitForRequests(6)
        #expect(peer.requests.count == 6)
    }

    // MARK: - Limits

    @Test func aHugeAnswerIsCutOffAndMemoryStaysBounded() throws {
        let peer = try HTTPPeer()
        let before = try residentBytes()
        var request = HTTPRequest(method: "GET", url: peer.url + "/big?bytes=\(1 << 30)")
        request.maxResponseBytes = 1 << 20
        let failure = try #require(try exchange(client, on: loop, request).failure)
        #expect(failure.kind == .tooLarge)
        #expect(failure.description.contains("1 MiB"))
        #expect(try residentBytes() - before < 100 << 20)
    }

    @Test func aGzipBombCountsItsDecodedBytes() throws {
        let peer = try HTTPPeer()
        let before = try residentBytes()
        var request = HTTPRequest(method: "GET", url: peer.url + "/gzip?bytes=\(1 << 30)")
        request.maxResponseBytes = 1 << 20
        #expect(try exchange(client, on: loop, request).failure?.kind == .tooLarge)
        #expect(try residentBytes() - before < 100 << 20)
    }

    @Test func aSmallGzipAnswerIsDecoded() throws {
        let peer = try HTTPPeer()
        let response = try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/gzip?bytes=100000")).get()
        #expect(response.body == [UInt8](repeating: 0, count: 100_000))
    }

    @Test func anEndlessTrickleStalls() throws {
        let peer = try HTTPPeer()
        // On a reused connection, which took no time to set up.
        _ = try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/echo")).get()
        var request = HTTPRequest(method: "GET", url: peer.url + "/trickle?every=2")
        request.stallSeconds = 3
        let started = Date()
        let failure = try #require(try exchange(client, on: loop, request).failure)
        #expect(failure.kind == .timeout)
        #expect(failure.description.contains("less than 1 byte a second for 3 s"))
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test func aTrickleFastEnoughNotToStallEndsAtTheTimeout() throws {
        let peer = try HTTPPeer()
        var request = HTTPRequest(method: "GET", url: peer.url + "/trickle?every=0.2")
        request.timeoutSeconds = 3
        let failure = try #require(try exchange(client, on: loop, request).failure)
        #expect(failure.kind == .timeout)
        #expect(failure.description == "127.0.0.1:\(peer.port) did not answer within 3 s")
    }

    @Test func aSlowServerTimesOut() throws {
        let peer = try HTTPPeer()
        var request = HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=5")
        request.timeoutSeconds = 2
        let failure = try #require(try exchange(client, on: loop, request).failure)
        #expect(failure.kind == .timeout)
        #expect(failure.description.contains("within 2 s"))
    }

    @Test func aRefusedConnectionIsUnreachable() throws {
        let port = try unusedPort()
        let failure = try #require(try exchange(client, on: loop, HTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/")).failure)
        #expect(failure.kind == .unreachable)
        #expect(failure.description.contains("127.0.0.1:\(port)"))
        #expect(failure.description.contains("refused"))
    }

    // MARK: - TLS

    @Test func aSelfSignedCertificateNeedsItsCA() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("chime-http-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let certificate = folder.appendingPathComponent("cert.pem").path, key = folder.appendingPathComponent("key.pem").path
        let made = try Spawned(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate],
                               environment: ProcessInfo.processInfo.environment).finish()
        #expect(made.status == 0, "\(made)")
        let peer = try HTTPPeer(tls: (certificate, key))

        let refused = try #require(try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/echo")).failure)
        #expect(refused.kind == .tls)
        #expect(refused.description.contains("127.0.0.1"))
        #expect(refused.description.contains("--ca FILE"))

        var trusting = HTTPRequest(method: "GET", url: peer.url + "/basic", user: "alice", password: "secret")
        trusting.caFile = certificate
        #expect(try exchange(client, on: loop, trusting).get().status == 200)

        // https to http is another origin: the password would go unencrypted.
        let plain = try HTTPPeer()
        trusting.url = peer.url + "/redirect?to=" + plain.url + "/basic"
        #expect(try exchange(client, on: loop, trusting).failure?.kind == .redirect)
        #expect(plain.requests.isEmpty)
    }

    // MARK: - The loop

    @Test func aCancelledTransferNeverCompletes() throws {
        let peer = try HTTPPeer()
        var cancelledDone = false
        let transfer = client.send(HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=1")) { _ in cancelledDone = true }
        try run(loop) { !peer.requests.isEmpty }
        transfer.cancel()
        #expect(client.transfers == 0)
        // A later, longer request to the same server: by its end the first had answered.
        #expect(try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=1.5")).get().status == 200)
        #expect(!cancelledDone)
        transfer.cancel()
    }

    @Test func aCompletionMayCancelOneTransferAndSendAnother() throws {
        let peer = try HTTPPeer()
        let refused = "http://127.0.0.1:\(try unusedPort())/"
        var events: [String] = []
        var second: HTTPTransfer?
        // The first completion cancels the second transfer, whichever state it is in, and
        // starts a third: only the first and third complete.
        for name in ["first", "second"] {
            let transfer = client.send(HTTPRequest(method: "GET", url: refused)) { [client] _ in
                events.append(name)
                second?.cancel()
                second = nil
                client.send(HTTPRequest(method: "GET", url: peer.url + "/echo")) { result in
                    events.append("third \((try? result.get().status) ?? -1)")
                }
            }
            if name == "second" { second = transfer }
        }
        try run(loop) { events.contains { $0.hasPrefix("third") } }
        #expect(events == ["first", "third 200"])
        #expect(client.transfers == 0)
    }

    @Test func aTransferCancelledBeforeItsFailureIsReportedStaysSilent() throws {
        var called = false
        let transfer = client.send(HTTPRequest(method: "GET", url: "ftp://127.0.0.1/")) { _ in called = true }
        transfer.cancel()
        try loop.runOnce(timeoutMilliseconds: 50)
        #expect(!called)
        #expect(client.armedSources == 0)
    }

    @Test func droppingTheClientEndsItsTransfers() throws {
        let peer = try HTTPPeer()
        var dropped: HTTPClient? = HTTPClient(loop: loop)
        var called = false
        dropped?.send(HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=1")) { _ in called = true }
        try run(loop) { !peer.requests.isEmpty }
        dropped = nil
        #expect(loop.nextTimeoutMilliseconds() == -1)
        #expect(try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=1.5")).get().status == 200)
        #expect(!called)
    }

    @Test func nothingStaysArmedOnTheLoopAfterATransfer() throws {
        let peer = try HTTPPeer()
        _ = try exchange(client, on: loop, HTTPRequest(method: "GET", url: peer.url + "/echo")).get()
        #expect(client.armedSources == 0)
        let wakeups = client.wakeups
        // The loop has nothing else: with the client idle it sleeps the whole time.
        try loop.runOnce(timeoutMilliseconds: 300)
        #expect(client.wakeups == wakeups)
        #expect(loop.nextTimeoutMilliseconds() == -1)
    }

    @Test func theLoopKeepsTurningDuringATransfer() throws {
        let peer = try HTTPPeer()
        var ticks: [UInt64] = []
        var timer: Source?
        func tick() {
            ticks.append(EventLoop.monotonicNow())
            timer = loop.timeout(afterMilliseconds: 50, handler: tick)
        }
        tick()
        var finished = 0
        client.send(HTTPRequest(method: "GET", url: peer.url + "/big?bytes=5000000")) { result in
            #expect((try? result.get().body.count) == 5_000_000)
            finished += 1
        }
        client.send(HTTPRequest(method: "GET", url: peer.url + "/slow?seconds=2")) { _ in finished += 1 }
        try run(loop) { finished == 2 }
        timer?.cancel()
        let gaps = zip(ticks.dropFirst(), ticks).map { $0 - $1 }
        #expect(ticks.count > 10)
        #expect(gaps.allSatisfy { $0 < 1_000_000_000 }, "longest gap \((gaps.max() ?? 0) / 1_000_000) ms")
    }

    // MARK: - Challenges

    @Test(arguments: [
        (#"Digest realm="x", nonce="y", qop="auth", algorithm=MD5"#, true),
        (#"Basic realm="x""#, false),
        (#"Digest realm="x", nonce="y", Basic realm="x""#, false),
        (#"Digest realm="a, Basic b", nonce = "y""#, true),
        (#"Negotiate abc==, Digest realm="x""#, true),
        ("", false),
    ])
    func digestOnlyChallengesAreRecognised(field: String, digestOnly: Bool) {
        #expect(HTTPClient.offersOnlyDigest(field) == digestOnly)
    }

    // MARK: - Helpers

    /// This process's resident memory, from /proc/self/status.
    func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let kilobytes = try #require(status.firstMatch(of: /VmRSS:\s+(\d+) kB/)?.1)
        return try #require(Int(kilobytes)) * 1024
    }

    /// A port on 127.0.0.1 nothing listens on: bound, read and closed again.
    func unusedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
