import CCurl

/// The parts of an http or https address that decide where a request goes, read by
/// libcurl's own URL parser so that Chime and libcurl agree on the host.
struct HTTPAddress: Equatable {
    /// "http" or "https".
    let scheme: String
    /// The host, lowercased; an IPv6 address in brackets.
    let host: String
    /// The port, the scheme's default when the address names none.
    let port: Int

    /// host:port, as a user would write it.
    var authority: String { "\(host):\(port)" }

    /// The scheme, host and port: what a redirect may not change, and what Digest is
    /// remembered for.
    var origin: String { "\(scheme)://\(authority)" }

    /// Whether the host is this machine (127.0.0.0/8, ::1, localhost): plain http to it never
    /// leaves the machine, so it may carry a password. libcurl resolves "localhost" itself,
    /// to loopback only.
    var isLoopback: Bool {
        if host == "localhost" || host == "[::1]" { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127"
            && parts.allSatisfy { part in part.count <= 3 && UInt8(part) != nil }
    }

    /// Reads `url`; libcurl must be loaded.
    static func parse(_ url: String) -> Result<HTTPAddress, HTTPFailure> {
        let invalid = HTTPFailure(.failed, "“\(url)” is not an http or https address")
        // A NUL would cut the C string short, and the part after it could name another host.
        guard !url.utf8.contains(0), let handle = curl_url() else { return .failure(invalid) }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK,
              let scheme = part(handle, CURLUPART_SCHEME), scheme == "http" || scheme == "https",
              let host = part(handle, CURLUPART_HOST), !host.isEmpty,
              let portText = part(handle, CURLUPART_PORT, flags: UInt32(CURLU_DEFAULT_PORT)), let port = Int(portText) else {
            return .failure(invalid)
        }
        // libcurl would send a user name and password in the address as credentials, past
        // the checks that keep them off plain http and off other servers.
        if part(handle, CURLUPART_USER) != nil || part(handle, CURLUPART_PASSWORD) != nil {
            return .failure(HTTPFailure(.failed, "“\(url)” holds a user name or password; give them apart from the address"))
        }
        return .success(HTTPAddress(scheme: scheme, host: host.lowercased(), port: port))
    }

    /// The absolute address a Location field points to, read against `base` (RFC 9110
    /// §10.2.2 allows a relative reference); nil when it cannot be read. libcurl must be loaded.
    static func resolve(_ location: String, against base: String) -> String? {
        guard !location.utf8.contains(0), let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, base, 0) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_URL, location, 0) == CURLUE_OK else { return nil }
        return part(handle, CURLUPART_URL)
    }

    private static func part(_ handle: OpaquePointer, _ what: CURLUPart, flags: UInt32 = 0) -> String? {
        var value: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, what, &value, flags) == CURLUE_OK, let value else { return nil }
        defer { curl_free(value) }
        return String(cString: value)
    }
}
