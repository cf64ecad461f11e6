import CCurl
import Glibc

/// One try of a request: one libcurl easy handle, and what arrives on it. A transfer makes
/// another for each redirect it follows and for a retry with Digest.
final class HTTPAttempt {
    /// Why the answer was cut off.
    enum Overflow { case body, headers }

    /// The most bytes of header lines accepted in one answer: libcurl bounds one line, not
    /// how many lines a server sends.
    static let maxHeaderBytes = 1 << 20

    /// The easy handle; owned, cleaned up with the attempt.
    let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// libcurl writes its detailed message here (CURLOPT_ERRORBUFFER); owned.
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let maxBodyBytes: Int

    private var fields: [(name: String, value: String)] = []
    private(set) var body: [UInt8] = []
    private var headerBytes = 0
    private var bodyStarted = false
    /// Set when the answer passed a limit and the transfer was aborted.
    private(set) var overflow: Overflow?

    /// Sets up `request` to `address`; libcurl must be loaded.
    init(request: HTTPRequest, address: HTTPAddress, digest: Bool, timeoutMilliseconds: Int) throws(HTTPFailure) {
        guard let easy = curl_easy_init() else { throw HTTPFailure(.failed, "libcurl could not start a request (out of memory)") }
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        maxBodyBytes = max(0, request.maxResponseBytes)
        try configure(request, address: address, digest: digest, timeoutMilliseconds: timeoutMilliseconds)
    }

    deinit {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    // MARK: - Options

    private func configure(_ request: HTTPRequest, address: HTTPAddress, digest: Bool, timeoutMilliseconds: Int) throws(HTTPFailure) {
        try set(CURLOPT_URL, request.url)
        try set(CURLOPT_NOSIGNAL, 1)
        // CalDAV is http and https only: no file://, no gopher:// behind a server's answer.
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        // Redirects are followed by HTTPClient, which keeps them on the same origin.
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_DISALLOW_USERNAME_IN_URL, 1)
        // A libcurl built without HTTP/2 refuses this, and speaks HTTP/1.1: not a failure.
        _ = chime_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // On HTTP/2, wait for the one connection to multiplex rather than open more.
        try set(CURLOPT_PIPEWAIT, 1)
        // "" offers every encoding this libcurl decodes (gzip, deflate, br, zstd).
        try set(CURLOPT_ACCEPT_ENCODING, "")
        try set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, min(HTTPClient.connectSeconds * 1_000, timeoutMilliseconds))
        try set(CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, max(1, request.stallSeconds))
        if address.isLoopback {
            // A proxy from the environment cannot reach this machine's loopback, and plain http
            // with a password is allowed only because it never leaves the machine.
            try set(CURLOPT_NOPROXY, "*")
        }
        if let caFile = request.caFile {
            try set(CURLOPT_CAINFO, caFile)
            // Only the given CAs: Debian's libcurl also reads /etc/ssl/certs by default.
            try check(chime_curl_easy_setopt_pointer(easy, CURLOPT_CAPATH, nil))
        }
        try check(chime_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        let me = Unmanaged.passUnretained(self).toOpaque()
        try check(chime_curl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, receiveBody))
        try check(chime_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, me))
        try check(chime_curl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, receiveHeader))
        try check(chime_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, me))

        if request.user != nil || request.password != nil {
            try set(CURLOPT_USERNAME, request.user ?? "")
            try set(CURLOPT_PASSWORD, request.password ?? "")
            try set(CURLOPT_HTTPAUTH, Int(digest ? CHIME_CURLAUTH_DIGEST : CHIME_CURLAUTH_BASIC))
        }
        try setMethod(request)
        try setHeaders(request)
    }

    private func setMethod(_ request: HTTPRequest) throws(HTTPFailure) {
        let method = request.method
        guard !method.isEmpty, method.utf8.allSatisfy(Self.isTokenCharacter) else {
            throw HTTPFailure(.failed, "“\(method)” is not an HTTP method")
        }
        if method == "HEAD" {
            try set(CURLOPT_NOBODY, 1)
        } else if !request.body.isEmpty || method == "PUT" || method == "POST" {
            // Set before the data: without a size libcurl would take the body to its first NUL.
            try check(chime_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            // COPYPOSTFIELDS: libcurl keeps its own copy, needed again for a Digest retry.
            let code = request.body.withUnsafeBytes { bytes in
                bytes.baseAddress.map { chime_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0)) }
                    ?? chime_curl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            }
            try check(code)
            if method != "POST" { try set(CURLOPT_CUSTOMREQUEST, method) }
        } else if method != "GET" {
            try set(CURLOPT_CUSTOMREQUEST, method)
        }
    }

    private func setHeaders(_ request: HTTPRequest) throws(HTTPFailure) {
        var lines: [String] = []
        for (name, value) in request.headers {
            guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenCharacter),
                  !value.utf8.contains(where: { $0 == 0 || $0 == 10 || $0 == 13 }) else {
                throw HTTPFailure(.failed, "the header field “\(name)” is not valid HTTP")
            }
            let trimmed = value.trimmingSpaces()
            // libcurl leaves out "Name:" with nothing after it; "Name;" sends it empty.
            lines.append(trimmed.isEmpty ? "\(name);" : "\(name): \(trimmed)")
        }
        let posting = !request.body.isEmpty || request.method == "PUT" || request.method == "POST"
        if posting && !request.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            // Otherwise libcurl labels the body application/x-www-form-urlencoded.
            lines.append("Content-Type:")
        }
        for line in lines {
            guard let list = curl_slist_append(headerList, line) else {
                throw HTTPFailure(.failed, "libcurl could not take the header fields (out of memory)")
            }
            headerList = list
        }
        if let headerList { try check(chime_curl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)) }
    }

    private func set(_ option: CURLoption, _ value: Int) throws(HTTPFailure) {
        try check(chime_curl_easy_setopt_long(easy, option, value))
    }

    private func set(_ option: CURLoption, _ value: String) throws(HTTPFailure) {
        guard !value.utf8.contains(0) else { throw HTTPFailure(.failed, "“\(value)” holds a NUL character") }
        try check(chime_curl_easy_setopt_string(easy, option, value))
    }

    private func check(_ code: CURLcode) throws(HTTPFailure) {
        guard code == CURLE_OK else {
            let reason = String(cString: curl_easy_strerror(code))
            if code == CURLE_UNKNOWN_OPTION || code == CURLE_NOT_BUILT_IN {
                throw HTTPFailure(.unavailable, "this libcurl lacks what Chime needs (\(reason)); Chime needs libcurl 7.85 or newer")
            }
            throw HTTPFailure(.failed, "libcurl could not set up the request (\(reason))")
        }
    }

    /// tchar of RFC 9110 §5.6.2.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    // MARK: - What arrives

    /// Takes `count` bytes of (decoded) body; false aborts the transfer.
    fileprivate func received(body bytes: UnsafeRawBufferPointer) -> Bool {
        bodyStarted = true
        guard bytes.count <= maxBodyBytes - body.count else {
            overflow = .body
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Takes one header line, CRLF included; false aborts the transfer.
    fileprivate func received(header bytes: UnsafeRawBufferPointer) -> Bool {
        headerBytes += bytes.count
        guard headerBytes <= Self.maxHeaderBytes else {
            overflow = .headers
            return false
        }
        let line = String(decoding: bytes, as: UTF8.self).trimmingLineEnd()
        if line.hasPrefix("HTTP/") {
            // A new answer: a 100 Continue, a Digest challenge or a proxy's reply came before.
            fields = []
            body = []
            bodyStarted = false
        } else if bodyStarted || line.isEmpty {
            // Trailers after a chunked body are not the answer's header fields.
        } else if line.first == " " || line.first == "\t" {
            // An obsolete folded line continues the field before it (RFC 9112 §5.2).
            if !fields.isEmpty { fields[fields.count - 1].value += " " + line.trimmingSpaces() }
        } else if let colon = line.firstIndex(of: ":") {
            fields.append((String(line[..<colon]).lowercased(), String(line[line.index(after: colon)...]).trimmingSpaces()))
        }
        return true
    }

    // MARK: - Results

    /// The detailed message libcurl left, or its general one for `code`.
    func detail(_ code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    func long(_ info: CURLINFO) -> Int {
        var value = 0
        return chime_curl_easy_getinfo_long(easy, info, &value) == CURLE_OK ? value : 0
    }

    func offset(_ info: CURLINFO) -> Int64 {
        var value: curl_off_t = 0
        return chime_curl_easy_getinfo_off_t(easy, info, &value) == CURLE_OK ? Int64(value) : 0
    }

    func string(_ info: CURLINFO) -> String? {
        var value: UnsafePointer<CChar>?
        guard chime_curl_easy_getinfo_string(easy, info, &value) == CURLE_OK, let value else { return nil }
        return String(cString: value)
    }

    /// The answer, once the transfer has completed.
    func response(url: String) -> HTTPResponse {
        var headers: [String: String] = [:]
        for (name, value) in fields {
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return HTTPResponse(status: long(CURLINFO_RESPONSE_CODE), headers: headers, body: body,
                            url: string(CURLINFO_EFFECTIVE_URL) ?? url)
    }
}

// libcurl's callbacks: C function pointers, the attempt passed unretained as user data (the
// client holds every attempt while its handle is in the multi handle).

private let receiveBody: curl_write_callback = { data, size, count, attempt in
    guard let attempt else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    return Unmanaged<HTTPAttempt>.fromOpaque(attempt).takeUnretainedValue().received(body: bytes) ? bytes.count : 0
}

private let receiveHeader: curl_write_callback = { data, size, count, attempt in
    guard let attempt else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
    return Unmanaged<HTTPAttempt>.fromOpaque(attempt).takeUnretainedValue().received(header: bytes) ? bytes.count : 0
}

extension StringProtocol {
    /// Without the spaces and tabs at either end (HTTP's OWS).
    func trimmingSpaces() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }

    /// Without the CR LF (or LF) a header line ends with.
    func trimmingLineEnd() -> String {
        var text = Substring(self)
        while let last = text.last, last == "\n" || last == "\r" || last == "\r\n" { text = text.dropLast() }
        return String(text)
    }
}
