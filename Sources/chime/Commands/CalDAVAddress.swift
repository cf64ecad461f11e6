import Localization

/// A CalDAV address as typed, looked at before a password is asked for it: chimed decides,
/// but a user should not type a password only to hear that the address cannot take it.
enum CalDAVAddress {
    /// Why `url` cannot be a CalDAV address chimed takes, one sentence; nil when it can.
    static func problem(_ url: String) -> String? {
        let lower = url.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), !host(url).isEmpty else {
            return localized("'%1$s' is not an https:// address; a folder of .ics files is given with --vdir DIR.", url)
        }
        if lower.hasPrefix("http://"), !isLoopback(url) {
            // The words of chimed's own refusal.
            return localized("'%1$s' is plain http, which would send the password unencrypted; use https://.", url)
        }
        return nil
    }

    /// `cloud.example.org`, `127.0.0.1:5232`: the host and port of `url`, without the user
    /// an address may name before `@`.
    static func host(_ url: String) -> String {
        guard let scheme = url.firstRange(of: "://") else { return "" }
        var authority = Substring(url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        return String(authority)
    }

    /// Whether `url` names this machine, where plain http reads no password on the way:
    /// `localhost`, 127.0.0.0/8 or `[::1]`.
    static func isLoopback(_ url: String) -> Bool {
        var name = Substring(host(url).lowercased())
        if name.hasPrefix("[") {
            name = name.dropFirst().prefix { $0 != "]" }
        } else if let colon = name.firstIndex(of: ":") {
            name = name[..<colon]
        }
        // An IPv4 literal only: 127.0.0.1.example.org is a name anyone may point anywhere.
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let loopbackIPv4 = parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
        return name == "localhost" || name == "::1" || loopbackIPv4
    }
}
