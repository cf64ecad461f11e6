import CCurl
import EventLoop
import Glibc

/// An HTTP client on chimed's event loop: libcurl's multi interface, whose sockets and timer
/// the loop watches.
///
/// No thread of Chime's and no polling: the loop wakes the client only for a socket libcurl
/// waits on or a timeout libcurl asked for, and with no transfer under way the client has
/// nothing on the loop. Connections stay in the multi handle's cache and are reused by the
/// next request to the same server. Proxies come from the environment (http_proxy,
/// https_proxy, no_proxy), as libcurl reads them by default. Dropping the client ends its
/// transfers without calling their completions.
public final class HTTPClient {
    /// The most redirects one request follows.
    static let maxRedirects = 5
    /// How long a connection (TCP and TLS) may take to set up.
    static let connectSeconds = 10

    private let loop: EventLoop
    /// libcurl's multi handle, made on the first request; owned.
    private var multi: UnsafeMutableRawPointer?
    private var sockets: [curl_socket_t: Source] = [:]
    private var timer: Source?
    private var underWay: [ObjectIdentifier: HTTPTransfer] = [:]
    /// The transfer of each easy handle in the multi handle.
    private var attempts: [UnsafeMutableRawPointer: HTTPTransfer] = [:]
    /// Origins that asked for Digest after Basic was sent: Digest goes first there from now on.
    private var digestOrigins: Set<String> = []

    /// How many times the loop has run one of the client's handlers (for tests).
    private(set) var wakeups = 0
    /// How many sources the client has on the loop (for tests).
    var armedSources: Int {
        sockets.count + (timer == nil ? 0 : 1) + underWay.values.filter { $0.pending != nil }.count
    }

    /// Why libcurl cannot be loaded, or nil when it can.
    public static func loadFailure() -> String? {
        guard chime_curl_available() == 0 else { return nil }
        return chime_curl_error().map { String(cString: $0) } ?? "libcurl.so.4 cannot be opened"
    }

    /// A client whose transfers run on `loop`; libcurl is loaded by the first request.
    public init(loop: EventLoop) {
        self.loop = loop
    }

    deinit {
        guard let multi else { return }
        // Nothing of libcurl's may call back into a client that is going away.
        _ = chime_curl_multi_setopt_socket_function(multi, nil)
        _ = chime_curl_multi_setopt_timer_function(multi, nil)
        for easy in attempts.keys { _ = curl_multi_remove_handle(multi, easy) }
        for transfer in underWay.values {
            transfer.attempt = nil
            transfer.pending = nil
        }
        _ = curl_multi_cleanup(multi)
    }

    /// How many transfers are under way.
    public var transfers: Int { underWay.count }

    /// Sends `request`; `done` is called on the loop, never from inside `send`, unless the
    /// transfer is cancelled first.
    @discardableResult
    public func send(_ request: HTTPRequest, done: @escaping (Result<HTTPResponse, HTTPFailure>) -> Void) -> HTTPTransfer {
        let transfer = HTTPTransfer(client: self, request: request, done: done)
        underWay[ObjectIdentifier(transfer)] = transfer
        if let failure = begin(transfer) {
            transfer.pending = loop.timeout(afterMilliseconds: 0) { [weak self, weak transfer] in
                guard let self, let transfer else { return }
                wakeups += 1
                finish(transfer, .failure(failure))
            }
        }
        return transfer
    }

    // MARK: - Starting

    private func begin(_ transfer: HTTPTransfer) -> HTTPFailure? {
        if let reason = Self.loadFailure() {
            return HTTPFailure(.unavailable, "libcurl cannot be loaded (\(reason)); install libcurl4")
        }
        let address: HTTPAddress
        switch HTTPAddress.parse(transfer.request.url) {
        case .failure(let failure): return failure
        case .success(let parsed): address = parsed
        }
        if address.scheme == "http" && transfer.request.hasCredentials && !address.isLoopback {
            let what = transfer.request.user != nil || transfer.request.password != nil ? "the password" : "the Authorization field"
            return HTTPFailure(.insecure, "a request to http://\(address.authority) would send \(what) unencrypted; use https")
        }
        return start(transfer, at: address)
    }

    /// Adds a new attempt of `transfer` to the multi handle; libcurl starts it on the loop's
    /// next turn.
    private func start(_ transfer: HTTPTransfer, at address: HTTPAddress) -> HTTPFailure? {
        guard let multi = multiHandle() else { return HTTPFailure(.failed, "libcurl could not start (out of memory)") }
        let now = EventLoop.monotonicNow()
        guard transfer.deadline > now else { return timeoutFailure(transfer, nil, address) }
        let digest = transfer.request.auth == .digest || digestOrigins.contains(address.origin)
        do {
            let attempt = try HTTPAttempt(request: transfer.request, address: address, digest: digest,
                                          timeoutMilliseconds: Int((transfer.deadline - now) / 1_000_000) + 1)
            let code = curl_multi_add_handle(multi, attempt.easy)
            guard code == CURLM_OK else {
                return HTTPFailure(.failed, "libcurl could not start the request (\(String(cString: curl_multi_strerror(code))))")
            }
            transfer.attempt = attempt
            transfer.address = address
            transfer.digest = digest
            attempts[attempt.easy] = transfer
            return nil
        } catch {
            return error
        }
    }

    private func multiHandle() -> UnsafeMutableRawPointer? {
        if let multi { return multi }
        guard let made = curl_multi_init() else { return nil }
        // The client outlives its multi handle (deinit cleans it up): unretained is enough.
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = chime_curl_multi_setopt_socket_function(made, onSocket)
        _ = chime_curl_multi_setopt_pointer(made, CURLMOPT_SOCKETDATA, me)
        _ = chime_curl_multi_setopt_timer_function(made, onTimer)
        _ = chime_curl_multi_setopt_pointer(made, CURLMOPT_TIMERDATA, me)
        // A calendar server is one small machine: a sync queues rather than opening dozens
        // of connections at once (as browsers keep to six).
        _ = chime_curl_multi_setopt_long(made, CURLMOPT_MAX_HOST_CONNECTIONS, 6)
        multi = made
        return made
    }

    // MARK: - Ending

    fileprivate func cancel(_ transfer: HTTPTransfer) {
        guard underWay.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { return }
        transfer.pending = nil
        if let attempt = transfer.attempt, let multi {
            attempts[attempt.easy] = nil
            _ = curl_multi_remove_handle(multi, attempt.easy)
        }
        transfer.attempt = nil
        transfer.done = nil
    }

    private func finish(_ transfer: HTTPTransfer, _ result: Result<HTTPResponse, HTTPFailure>) {
        guard underWay.removeValue(forKey: ObjectIdentifier(transfer)) != nil else { return }
        transfer.pending = nil
        transfer.attempt = nil
        let done = transfer.done
        transfer.done = nil
        done?(result)
    }

    /// Takes the transfers libcurl has finished out of the multi handle and decides, for
    /// each, between an answer, a failure and another attempt.
    private func collectFinished() {
        guard let multi else { return }
        // All messages first, each with its attempt held: a completion may cancel another
        // transfer whose message waits, and start one whose new easy handle could reuse the
        // cancelled one's address.
        var finished: [(transfer: HTTPTransfer, attempt: HTTPAttempt, code: CURLcode)] = []
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
               let transfer = attempts[easy], let attempt = transfer.attempt {
                finished.append((transfer, attempt, message.pointee.data.result))
            }
        }
        for (transfer, attempt, code) in finished {
            guard transfer.attempt === attempt, let address = transfer.address else { continue }
            attempts[attempt.easy] = nil
            _ = curl_multi_remove_handle(multi, attempt.easy)
            transfer.attempt = nil
            if code == CURLE_OK {
                answered(transfer, attempt, at: address)
            } else {
                finish(transfer, .failure(failure(code, attempt, transfer, address)))
            }
        }
    }

    /// Hands the answer over, or tries again with Digest, or follows a redirect.
    private func answered(_ transfer: HTTPTransfer, _ attempt: HTTPAttempt, at address: HTTPAddress) {
        let response = attempt.response(url: transfer.request.url)
        if response.status == 401, transfer.request.hasCredentials, !transfer.digest,
           Self.offersOnlyDigest(response.header("www-authenticate")) {
            digestOrigins.insert(address.origin)
            if let failure = start(transfer, at: address) { finish(transfer, .failure(failure)) }
            return
        }
        // Not CURLINFO_REDIRECT_URL: libcurl writes the user and password into that address.
        if [301, 302, 303, 307, 308].contains(response.status), let location = response.header("location") {
            follow(transfer, from: address, to: location, status: response.status)
            return
        }
        finish(transfer, .success(response))
    }

    /// Follows a redirect within the same origin: credentials and the body go only where
    /// the user pointed Chime.
    private func follow(_ transfer: HTTPTransfer, from address: HTTPAddress, to location: String, status: Int) {
        guard transfer.redirects < Self.maxRedirects else {
            finish(transfer, .failure(HTTPFailure(.redirect, "\(address.authority) redirected more than \(Self.maxRedirects) times, last to \(location)")))
            return
        }
        guard let location = HTTPAddress.resolve(location, against: transfer.request.url) else {
            finish(transfer, .failure(HTTPFailure(.redirect, "\(transfer.request.url) redirects to “\(location)”, which is not an address")))
            return
        }
        guard case .success(let target) = HTTPAddress.parse(location), target.origin == address.origin else {
            let failure = "\(transfer.request.url) redirects to \(location), another server; use that address instead if you trust it"
            finish(transfer, .failure(HTTPFailure(.redirect, failure)))
            return
        }
        transfer.redirects += 1
        transfer.request.url = location
        // 303 See Other: fetch the other resource with GET (RFC 9110 §15.4.4).
        if status == 303 && transfer.request.method != "HEAD" {
            transfer.request.method = "GET"
            transfer.request.body = []
            transfer.request.headers.removeAll { $0.name.lowercased() == "content-type" }
        }
        if let failure = start(transfer, at: target) { finish(transfer, .failure(failure)) }
    }

    // MARK: - libcurl's socket and timer

    fileprivate func socketChanged(_ fd: curl_socket_t, wants what: Int32) {
        if what == CURL_POLL_REMOVE {
            sockets.removeValue(forKey: fd)?.cancel()
            return
        }
        var events: EventLoop.Events = []
        if what & CURL_POLL_IN != 0 { events.insert(.readable) }
        if what & CURL_POLL_OUT != 0 { events.insert(.writable) }
        if let source = sockets[fd] {
            loop.update(source, events: events)
        } else {
            sockets[fd] = loop.watch(fd: fd, events: events) { [weak self] ready in self?.socketReady(fd, ready) }
        }
    }

    fileprivate func timerChanged(milliseconds: Int) {
        timer?.cancel()
        timer = nil
        // -1 removes the timer. libcurl may not be called from inside this callback, so
        // even 0 ("now") waits for the loop's next turn.
        guard milliseconds >= 0 else { return }
        timer = loop.timeout(afterMilliseconds: milliseconds) { [weak self] in
            guard let self else { return }
            wakeups += 1
            timer = nil
            act(on: CHIME_CURL_SOCKET_TIMEOUT, mask: 0)
        }
    }

    private func socketReady(_ fd: curl_socket_t, _ ready: EventLoop.Events) {
        wakeups += 1
        var mask: Int32 = 0
        // A hang-up is read as end of file.
        if !ready.isDisjoint(with: [.readable, .hangup]) { mask |= CURL_CSELECT_IN }
        if ready.contains(.writable) { mask |= CURL_CSELECT_OUT }
        if ready.contains(.error) { mask |= CURL_CSELECT_ERR }
        if ready.rawValue & Int16(POLLNVAL) != 0 {
            // A descriptor closed behind the client's back: poll would report it forever.
            sockets.removeValue(forKey: fd)?.cancel()
            mask |= CURL_CSELECT_ERR
        }
        act(on: fd, mask: mask)
    }

    private func act(on fd: curl_socket_t, mask: Int32) {
        guard let multi else { return }
        var running: Int32 = 0
        _ = curl_multi_socket_action(multi, fd, mask, &running)
        collectFinished()
    }

    // MARK: - Failures

    private func failure(_ code: CURLcode, _ attempt: HTTPAttempt, _ transfer: HTTPTransfer, _ address: HTTPAddress) -> HTTPFailure {
        let detail = attempt.detail(code)
        let at = address.authority
        let osError = attempt.long(CURLINFO_OS_ERRNO)
        let reason = osError != 0 ? String(cString: strerror(Int32(clamping: osError))) : detail
        switch code {
        case CURLE_WRITE_ERROR where attempt.overflow == .body:
            return HTTPFailure(.tooLarge, "the answer from \(at) is larger than \(Self.bytes(transfer.request.maxResponseBytes))")
        case CURLE_WRITE_ERROR where attempt.overflow == .headers:
            return HTTPFailure(.tooLarge, "\(at) sent more than \(Self.bytes(HTTPAttempt.maxHeaderBytes)) of header fields")
        case CURLE_COULDNT_RESOLVE_HOST:
            return HTTPFailure(.unreachable, "cannot find \(address.host) (\(detail))")
        case CURLE_COULDNT_RESOLVE_PROXY:
            return HTTPFailure(.unreachable, "cannot find the proxy for \(at) (\(detail))")
        case CURLE_COULDNT_CONNECT:
            return HTTPFailure(.unreachable, "cannot connect to \(at) (\(reason))")
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR:
            return HTTPFailure(.unreachable, "the connection to \(at) broke (\(reason))")
        case CURLE_GOT_NOTHING:
            return HTTPFailure(.unreachable, "\(at) closed the connection without answering")
        case CURLE_PARTIAL_FILE:
            return HTTPFailure(.unreachable, "\(at) closed the connection before the whole answer arrived")
        case CURLE_OPERATION_TIMEDOUT:
            return timeoutFailure(transfer, attempt, address)
        case CURLE_PEER_FAILED_VERIFICATION:
            if let caFile = transfer.request.caFile {
                return HTTPFailure(.tls, "the certificate of \(address.host) is not signed by a CA in \(caFile) (\(detail))")
            }
            return HTTPFailure(.tls, "the certificate of \(address.host) is not trusted (\(detail)); if the server's certificate is self-signed, give its CA with --ca FILE")
        case CURLE_SSL_CACERT_BADFILE:
            return HTTPFailure(.tls, "the CA file \(transfer.request.caFile ?? "") cannot be used (\(detail))")
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
             CURLE_SSL_SHUTDOWN_FAILED, CURLE_USE_SSL_FAILED:
            return HTTPFailure(.tls, "TLS with \(at) failed (\(detail))")
        case CURLE_BAD_CONTENT_ENCODING:
            return HTTPFailure(.failed, "\(at) sent a body that cannot be decoded (\(detail))")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return HTTPFailure(.failed, "\(at) sent an answer that is not valid HTTP (\(detail))")
        default:
            return HTTPFailure(.failed, "the request to \(at) failed (\(detail))")
        }
    }

    /// Which of the three limits ran out: the whole exchange, the connection's set-up, or
    /// the least speed.
    private func timeoutFailure(_ transfer: HTTPTransfer, _ attempt: HTTPAttempt?, _ address: HTTPAddress) -> HTTPFailure {
        let at = address.authority
        // libcurl's clock and the loop's differ by a little.
        let slack: UInt64 = 250_000_000
        if let attempt, EventLoop.monotonicNow() + slack < transfer.deadline {
            // A reused connection took no time to connect: whether the request went out at
            // all is what tells a stall from a connection that never came.
            let sent = attempt.offset(CURLINFO_PRETRANSFER_TIME_T) > 0
            if !sent && attempt.offset(CURLINFO_CONNECT_TIME_T) == 0 {
                return HTTPFailure(.timeout, "\(at) did not accept a connection within \(Self.connectSeconds) s")
            }
            if !sent && address.scheme == "https" {
                return HTTPFailure(.timeout, "\(at) did not complete the TLS handshake within \(Self.connectSeconds) s")
            }
            return HTTPFailure(.timeout, "\(at) sent less than 1 byte a second for \(max(1, transfer.request.stallSeconds)) s")
        }
        return HTTPFailure(.timeout, "\(at) did not answer within \(transfer.timeoutSeconds) s")
    }

    private static func bytes(_ count: Int) -> String {
        if count >= 1 << 20 && count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10 && count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return count == 1 ? "1 byte" : "\(count) bytes"
    }

    // MARK: - Challenges

    /// Whether a WWW-Authenticate field offers Digest and not Basic.
    static func offersOnlyDigest(_ field: String?) -> Bool {
        guard let field else { return false }
        let schemes = challengeSchemes(field)
        return schemes.contains("digest") && !schemes.contains("basic")
    }

    /// The auth-schemes, lowercased, of the challenges in a WWW-Authenticate field (RFC 9110
    /// §11.6.1): each comma-separated element that starts with a token not followed by "=".
    static func challengeSchemes(_ field: String) -> Set<String> {
        var elements: [String] = []
        var element = ""
        var quoted = false, escaped = false
        for character in field {
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if character == "," && !quoted {
                elements.append(element)
                element = ""
                continue
            }
            element.append(character)
        }
        elements.append(element)
        var schemes = Set<String>()
        for element in elements {
            let text = element.trimmingSpaces()
            let token = text.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0)) }
            guard !token.isEmpty else { continue }
            let rest = text.dropFirst(token.count).drop { $0 == " " || $0 == "\t" }
            if rest.first != "=" { schemes.insert(token.lowercased()) }
        }
        return schemes
    }
}

/// A request under way on an ``HTTPClient``.
public final class HTTPTransfer {
    fileprivate weak var client: HTTPClient?
    /// The request as the next attempt sends it: a redirect changes its address.
    fileprivate var request: HTTPRequest
    fileprivate var done: ((Result<HTTPResponse, HTTPFailure>) -> Void)?
    fileprivate var attempt: HTTPAttempt?
    fileprivate var address: HTTPAddress?
    /// A failure found before anything was sent, reported on the loop's next turn.
    fileprivate var pending: Source?
    fileprivate var redirects = 0
    fileprivate var digest = false
    /// When the whole exchange must be over, on the loop's clock.
    fileprivate let deadline: UInt64
    fileprivate let timeoutSeconds: Int

    fileprivate init(client: HTTPClient, request: HTTPRequest, done: @escaping (Result<HTTPResponse, HTTPFailure>) -> Void) {
        self.client = client
        self.request = request
        self.done = done
        // A month is "no limit"; more would overflow the clock's nanoseconds.
        timeoutSeconds = min(max(1, request.timeoutSeconds), 30 * 86_400)
        deadline = EventLoop.monotonicNow() + UInt64(timeoutSeconds) * 1_000_000_000
    }

    /// Stops the transfer; its completion is never called. Safe to call more than once, and
    /// after it has finished.
    public func cancel() {
        client?.cancel(self)
    }
}

// libcurl's callbacks: C function pointers, the client passed unretained as user data.

private let onSocket: curl_socket_callback = { _, fd, what, client, _ in
    guard let client else { return 0 }
    Unmanaged<HTTPClient>.fromOpaque(client).takeUnretainedValue().socketChanged(fd, wants: what)
    return 0
}

private let onTimer: curl_multi_timer_callback = { _, milliseconds, client in
    guard let client else { return 0 }
    Unmanaged<HTTPClient>.fromOpaque(client).takeUnretainedValue().timerChanged(milliseconds: milliseconds)
    return 0
}
