/// URLs of WebDAV resources: hrefs made absolute, origins compared, collections matched.
///
/// Servers write hrefs their own way: Radicale and SabreDAV write absolute paths,
/// percent-encoded; others write full URLs, and some leave spaces or non-ASCII raw. Every URL
/// this returns is percent-encoded wherever RFC 3986 requires, so that libcurl takes it, while
/// an existing `%XX` is kept as the server wrote it.
public enum DAVURL {
    /// The absolute URL of `href` (an absolute path, a full URL, or relative) read against
    /// `base`, by RFC 3986 5.2; nil when `base` is not an absolute URL or the result is not
    /// http or https with a host. A fragment and a user name are dropped: HTTP never sends
    /// the one, and Chime sends its own credentials.
    public static func resolve(_ href: String, against base: String) -> String? {
        let reference = Parts(trimmingSpace(href))
        let base = Parts(trimmingSpace(base))
        guard base.scheme != nil else { return nil }
        var target = Parts()
        if reference.scheme != nil {
            target = reference
            target.path = removingDotSegments(reference.path)
        } else {
            if reference.authority != nil {
                target.authority = reference.authority
                target.path = removingDotSegments(reference.path)
                target.query = reference.query
            } else {
                if reference.path.isEmpty {
                    target.path = base.path
                    target.query = reference.query ?? base.query
                } else {
                    target.path = removingDotSegments(reference.path.hasPrefix("/") ? reference.path : merged(base, reference.path))
                    target.query = reference.query
                }
                target.authority = base.authority
            }
            target.scheme = base.scheme
        }
        guard let scheme = target.scheme, scheme == "http" || scheme == "https",
              var authority = target.authority, Authority(authority) != nil else { return nil }
        // Chime sends the user's credentials itself; a user name and password in an href
        // (which no server has reason to write) would be sent in their place.
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        let path = target.path.isEmpty ? "/" : encoded(target.path)
        return scheme + "://" + authority + path + (target.query.map { "?" + encoded($0) } ?? "")
    }

    /// Whether `a` and `b` have the same scheme, host (in any case) and port (a missing one
    /// being its scheme's default); false when either is not an absolute URL.
    public static func sameOrigin(_ a: String, _ b: String) -> Bool {
        guard let first = origin(Parts(trimmingSpace(a))), let second = origin(Parts(trimmingSpace(b))) else { return false }
        return first == second
    }

    /// The last segment of `url`, percent-decoded (RFC 3986 2.1) where that makes UTF-8, as
    /// written where not: what a calendar is called after its address. Nil for no segment.
    public static func lastSegment(of url: String) -> String? {
        guard let last = url.split(separator: "/").last else { return nil }
        let bytes = Array(last.utf8)
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(bytes[index])
                index += 1
            }
        }
        return String(validating: decoded, as: UTF8.self) ?? String(last)
    }

    /// The path of an absolute URL ("/" when it has none), or of an absolute path; without
    /// query or fragment, encoded as written. Nil for anything else.
    public static func path(of url: String) -> String? {
        let parts = Parts(trimmingSpace(url))
        if parts.scheme != nil {
            guard parts.authority != nil else { return nil }
            return parts.path.isEmpty ? "/" : parts.path
        }
        guard parts.authority == nil, parts.path.hasPrefix("/") else { return nil }
        return parts.path
    }

    /// A text that two URLs of the same collection share however each was written: scheme,
    /// host and port lower-case with the default port filled in, the path with dot segments
    /// removed and percent-encoding normalized (unreserved characters decoded, the rest
    /// encoded with upper-case hex), without trailing slashes, query or fragment. A path alone
    /// gives the key of its path.
    public static func collectionKey(_ url: String) -> String {
        let parts = Parts(trimmingSpace(url))
        var key = ""
        if let origin = origin(parts) {
            key = origin.scheme + "://" + origin.host + (origin.port.map { ":\($0)" } ?? "")
        }
        var path = normalized(removingDotSegments(encoded(parts.path)))
        while path.hasSuffix("/") { path.removeLast() }
        return key + path
    }

    /// Whether the host of `url` is this machine: `localhost`, 127.0.0.0/8, `[::1]` (or
    /// IPv4-mapped 127.x). A name that merely ends in `.localhost` is not: a resolver may
    /// send it elsewhere.
    public static func isLoopback(_ url: String) -> Bool {
        let parts = Parts(trimmingSpace(url))
        guard parts.scheme != nil, let authority = parts.authority.flatMap(Authority.init) else { return false }
        let host = authority.host
        if host == "localhost" || host == "localhost." { return true }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            guard let groups = ipv6(String(host.dropFirst().dropLast())) else { return false }
            if groups == [0, 0, 0, 0, 0, 0, 0, 1] { return true }
            return groups[0..<5].allSatisfy { $0 == 0 } && groups[5] == 0xFFFF && groups[6] >> 8 == 127
        }
        return ipv4(host)?.first == 127
    }

    // MARK: - Parts of a URL

    /// A URI reference split as RFC 3986 appendix B splits it.
    struct Parts {
        var scheme: String?
        var authority: String?
        var path = ""
        var query: String?
        var fragment: String?

        init() {}

        init(_ text: String) {
            var rest = Substring(text)
            // A scheme is letters, digits, "+", "-" and "." from a letter up to the first ":".
            if let colon = rest.firstIndex(of: ":"), let first = rest.first, first.isASCII && first.isLetter,
               rest[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) {
                scheme = rest[..<colon].lowercased()
                rest = rest[rest.index(after: colon)...]
            }
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let mark = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: mark)...])
                rest = rest[..<mark]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            path = String(rest)
        }
    }

    /// The host and port of an authority, `[userinfo@]host[:port]`.
    struct Authority {
        /// Lower-case; an IPv6 address keeps its brackets.
        var host: String
        var port: Int?

        init?(_ text: String) {
            var rest = Substring(text)
            if let at = rest.lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
            var portText: Substring?
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                let after = rest[rest.index(after: close)...]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { return nil }
                    portText = after.dropFirst()
                }
                rest = rest[...close]
            } else if let colon = rest.firstIndex(of: ":") {
                portText = rest[rest.index(after: colon)...]
                rest = rest[..<colon]
            }
            guard !rest.isEmpty else { return nil }
            host = rest.lowercased()
            if let portText, !portText.isEmpty {
                guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText), port <= 65_535 else { return nil }
                self.port = port
            }
        }
    }

    /// Scheme, host and port, the default port filled in for http and https.
    private struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int?
    }

    private static func origin(_ parts: Parts) -> Origin? {
        guard let scheme = parts.scheme, let authority = parts.authority.flatMap(Authority.init) else { return nil }
        let defaultPort = scheme == "http" ? 80 : scheme == "https" ? 443 : nil
        return Origin(scheme: scheme, host: authority.host, port: authority.port ?? defaultPort)
    }

    // MARK: - Paths

    /// RFC 3986 5.2.3: `reference` after the last "/" of the base's path.
    private static func merged(_ base: Parts, _ reference: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + reference }
        guard let slash = base.path.lastIndex(of: "/") else { return reference }
        return base.path[...slash] + reference
    }

    /// RFC 3986 5.2.4: the path without its "." and ".." segments.
    static func removingDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let absolute = path.hasPrefix("/")
        for (index, segment) in segments.enumerated() {
            if absolute && index == 0 { continue }
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }

    /// `text` with every byte RFC 3986 allows in a path or query kept (an existing `%XX`
    /// too), and every other (space, non-ASCII, `"`, `<`, a lone `%`, …) percent-encoded.
    static func encoded(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil {
                result.append(byte)
            } else if isUnreserved(byte) || allowedDelimiters.contains(byte) {
                result.append(byte)
            } else {
                result += percentEncoded(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// `text` (already encoded) with each `%XX` of an unreserved character decoded and every
    /// other in upper-case hex, RFC 3986 6.2.2's normal form.
    static func normalized(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let byte = high << 4 | low
                if isUnreserved(byte) { result.append(byte) } else { result += percentEncoded(byte) }
                index += 3
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Sub-delimiters and the other characters a path or query holds raw (RFC 3986 3.3, 3.4).
    private static let allowedDelimiters: Set<UInt8> = Set("!$&'()*+,;=:@/?".utf8)

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func percentEncoded(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 15)]]
    }

    // MARK: - Hosts

    /// The four numbers of a dotted-quad IPv4 address; nil for anything else (the shortened
    /// forms some resolvers take, "127.1", are not treated as loopback).
    private static func ipv4(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let numbers = parts.compactMap { part -> Int? in
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(part), value <= 255 else { return nil }
            return value
        }
        return numbers.count == 4 ? numbers : nil
    }

    /// The eight groups of an IPv6 address (RFC 4291 2.2, with a zone after "%" ignored).
    private static func ipv6(_ text: String) -> [UInt16]? {
        let address = text.split(separator: "%", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let halves = address.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let quad = ipv4(String(piece)) {
                    result += [UInt16(quad[0] << 8 | quad[1]), UInt16(quad[2] << 8 | quad[3])]
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}
