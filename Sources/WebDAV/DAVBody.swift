/// The request bodies of CalDAV discovery and sync, as UTF-8 XML.
///
/// Each names only the properties Chime reads: servers compute some (privileges, a ctag)
/// per request, and Google and iCloud answer `allprop` slowly or not at all.
public enum DAVBody {
    /// PROPFIND, Depth 0, on the URL the user gave: who is signed in (RFC 5397).
    public static func currentUserPrincipal() -> [UInt8] {
        propfind([(DAVNamespace.dav, "current-user-principal")])
    }

    /// PROPFIND, Depth 0, on the principal: where its calendars are (RFC 4791 6.2.1).
    public static func calendarHome() -> [UInt8] {
        propfind([(DAVNamespace.calDAV, "calendar-home-set")])
    }

    /// PROPFIND, Depth 1, on a calendar home: each member's kind, name, components, what the
    /// user may do in it, its color, and its ctag and sync token (to see whether it changed).
    public static func calendars() -> [UInt8] {
        propfind([
            (DAVNamespace.dav, "resourcetype"),
            (DAVNamespace.dav, "displayname"),
            (DAVNamespace.calDAV, "supported-calendar-component-set"),
            (DAVNamespace.dav, "current-user-privilege-set"),
            (DAVNamespace.appleICal, "calendar-color"),
            (DAVNamespace.calendarServer, "getctag"),
            (DAVNamespace.dav, "sync-token"),
        ])
    }

    /// PROPFIND, Depth 0, on a calendar: what the user may do in it (RFC 3744 5.4).
    public static func privileges() -> [UInt8] {
        propfind([(DAVNamespace.dav, "current-user-privilege-set")])
    }

    /// PROPFIND, Depth 1, on a calendar: each member's ETag, for servers without sync-collection.
    public static func etags() -> [UInt8] {
        propfind([(DAVNamespace.dav, "getetag"), (DAVNamespace.dav, "resourcetype")])
    }

    /// REPORT, Depth 0 (RFC 6578 3.3 forbids another), on a calendar: what changed since
    /// `token`, or every member when `token` is nil or empty; sync-level 1 (the members
    /// themselves, not their children), with their ETags.
    public static func syncCollection(token: String?) -> [UInt8] {
        let tokenElement = token.flatMap(nonEmpty).map { "<d:sync-token>\(escaped($0))</d:sync-token>" } ?? "<d:sync-token/>"
        return Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <d:sync-collection xmlns:d="DAV:">\
            \(tokenElement)\
            <d:sync-level>1</d:sync-level>\
            <d:prop><d:getetag/></d:prop>\
            </d:sync-collection>

            """.utf8)
    }

    /// REPORT, Depth 1, on a calendar: the ETag and iCalendar text of each of `hrefs`
    /// (RFC 4791 7.9), which are sent as given: as the server wrote them.
    public static func multiget(hrefs: [String]) -> [UInt8] {
        let list = hrefs.map { "<d:href>\(escaped($0))</d:href>" }.joined()
        return Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <c:calendar-multiget xmlns:d="DAV:" xmlns:c="\(DAVNamespace.calDAV)">\
            <d:prop><d:getetag/><c:calendar-data/></d:prop>\
            \(list)\
            </c:calendar-multiget>

            """.utf8)
    }

    // MARK: - Writing

    /// The prefix each namespace is written with; a server must not care which (XML
    /// Namespaces), and these are the ones most servers use themselves.
    private static let prefixes: [(namespace: String, prefix: String)] = [
        (DAVNamespace.dav, "d"), (DAVNamespace.calDAV, "c"), (DAVNamespace.calendarServer, "cs"), (DAVNamespace.appleICal, "ical"),
    ]

    /// A PROPFIND body asking for `properties`.
    private static func propfind(_ properties: [(namespace: String, name: String)]) -> [UInt8] {
        let used = prefixes.filter { entry in entry.namespace == DAVNamespace.dav || properties.contains { $0.namespace == entry.namespace } }
        let declarations = used.map { " xmlns:\($0.prefix)=\"\($0.namespace)\"" }.joined()
        let list = properties.map { property in
            let prefix = prefixes.first { $0.namespace == property.namespace }?.prefix ?? "d"
            return "<\(prefix):\(property.name)/>"
        }.joined()
        return Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <d:propfind\(declarations)><d:prop>\(list)</d:prop></d:propfind>

            """.utf8)
    }

    /// `text` as XML character data. A control character (which no URI holds raw, and some of
    /// which XML 1.0 cannot carry at all) is percent-encoded, as it would be in an href or a
    /// sync token, both URIs; a caller may pass anything.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0xFFFE || scalar.value == 0xFFFF:
                for byte in String(scalar).utf8 { result += "%" + hex(byte) }
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
    }
}
