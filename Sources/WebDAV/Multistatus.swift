/// One `DAV:response` of a multistatus: a resource and what the server said of its properties.
///
/// Only properties of a propstat whose status is 2xx are read into the fields; a 404 propstat
/// names its properties in ``missing``. Texts are as the server wrote them, less the white
/// space around them (except calendar-data, kept whole).
public struct DAVResponse: Sendable, Equatable {
    /// The resource, as the server wrote it (trimmed): an absolute path, a full URL, or
    /// relative; percent-encoded or not (``DAVURL/resolve(_:against:)`` makes it a URL).
    public var href: String
    /// A `DAV:status` directly in the response, for a response without propstats: the 404 of
    /// a member that sync-collection reports removed (RFC 6578 3.5.2).
    public var status: Int?
    /// getetag of a 2xx propstat, quotes kept as sent: compared, never interpreted.
    public var etag: String?
    /// The text of `C:calendar-data` (RFC 4791 9.6), whole. XML makes the CRLF line ends of
    /// iCalendar LF unless the server wrote them as `&#13;`: Radicale 3.1.8 writes them raw,
    /// so its events arrive with LF.
    public var calendarData: String?
    /// Whether resourcetype holds `DAV:collection`.
    public var isCollection: Bool
    /// Whether resourcetype holds `C:calendar`.
    public var isCalendar: Bool
    /// displayname, trimmed; nil when absent or empty.
    public var displayName: String?
    /// Apple's calendar-color (http://apple.com/ns/ical/), usually `#RRGGBB` or `#RRGGBBAA`.
    public var color: String?
    /// The `name` of each comp of supported-calendar-component-set, upper-case: ["VEVENT", "VTODO"].
    public var components: [String]
    /// The local names of current-user-privilege-set (RFC 3744 5.4): "read", "write",
    /// "write-content", "all", "read-free-busy", … As written: "all" holds every other
    /// (RFC 3744 3.12), and xandikos 0.2.8 lists only it; Radicale 3.1.8 lists it beside the rest.
    public var privileges: Set<String>
    /// Whether its privileges let the user change its members; true when the server gave
    /// none, since a refused PUT says so anyway.
    public var writable: Bool {
        privileges.isEmpty || !privileges.isDisjoint(with: ["write", "write-content", "all"])
    }
    /// The href of current-user-principal (RFC 5397); nil when absent or `unauthenticated`.
    public var principal: String?
    /// The hrefs of calendar-home-set (RFC 4791 6.2.1).
    public var calendarHomes: [String]
    /// A `DAV:sync-token` property (RFC 6578 4), asked for with PROPFIND.
    public var syncToken: String?
    /// CalendarServer's getctag, which changes whenever a member does.
    public var ctag: String?
    /// The local names of the properties a propstat reported 404 Not Found.
    public var missing: Set<String>
    /// The status of a non-2xx propstat that held calendar-data or getetag: a member the server
    /// lists but cannot give (a multiget's 404 for an href gone since, a 403, a 500).
    public var propstatStatus: Int?

    /// A response for `href` with nothing known of it yet.
    public init(href: String) {
        self.href = href
        status = nil
        etag = nil
        calendarData = nil
        isCollection = false
        isCalendar = false
        displayName = nil
        color = nil
        components = []
        privileges = []
        principal = nil
        calendarHomes = []
        syncToken = nil
        ctag = nil
        missing = []
        propstatStatus = nil
    }
}

/// A `207 Multi-Status` body (RFC 4918 13): the answer to PROPFIND and to the REPORTs of
/// CalDAV and sync-collection.
public struct Multistatus: Sendable, Equatable {
    /// The responses, in the server's order; a response naming several hrefs under one status
    /// is one entry per href.
    public var responses: [DAVResponse]
    /// The new token of a sync-collection REPORT (RFC 6578 3.2), to send next time.
    public var syncToken: String?

    /// A multistatus of these responses.
    public init(responses: [DAVResponse] = [], syncToken: String? = nil) {
        self.responses = responses
        self.syncToken = syncToken
    }

    /// Reads a multistatus body, refused as ``XMLTree/parse(_:maxBytes:)`` refuses one, or when
    /// its root is not `DAV:multistatus`.
    public static func parse(_ body: [UInt8], maxBytes: Int = XMLTree.defaultMaxBytes) throws(DAVFailure) -> Multistatus {
        let root = try XMLTree.parse(body, maxBytes: maxBytes)
        guard root.is(DAVNamespace.dav, "multistatus") else {
            throw DAVFailure("the server's answer is not a WebDAV multistatus: its root element is \(root.qualifiedName)")
        }
        var multistatus = Multistatus()
        for element in root.children(DAVNamespace.dav, "response") {
            multistatus.responses += responses(in: element)
        }
        multistatus.syncToken = root.child(DAVNamespace.dav, "sync-token").map(\.trimmedText).flatMap(nonEmpty)
        return multistatus
    }

    /// The status code of a `DAV:status` text, "HTTP/1.1 404 Not Found" → 404.
    static func statusCode(_ text: String) -> Int? {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard words.count >= 2, words[0].hasPrefix("HTTP/"), let code = Int(words[1]), (100...599).contains(code) else { return nil }
        return code
    }

    /// The entries of one `DAV:response`: one, or one per href of the href-and-status form.
    private static func responses(in element: XMLTree) -> [DAVResponse] {
        let hrefs = element.children(DAVNamespace.dav, "href").map(\.trimmedText).filter { !$0.isEmpty }
        // A response without an href names nothing the caller could act on.
        guard let first = hrefs.first else { return [] }
        var response = DAVResponse(href: first)
        response.status = element.child(DAVNamespace.dav, "status").flatMap { statusCode($0.text) }
        for propstat in element.children(DAVNamespace.dav, "propstat") {
            guard let prop = propstat.child(DAVNamespace.dav, "prop") else { continue }
            // RFC 4918 requires the status; a propstat without one (or with one unreadable) is
            // read as the success that a server leaving it out most likely meant.
            let code = propstat.child(DAVNamespace.dav, "status").flatMap { statusCode($0.text) } ?? 200
            if (200..<300).contains(code) {
                read(prop, into: &response)
                continue
            }
            for property in prop.children {
                if code == 404 { response.missing.insert(property.name) }
                if property.is(DAVNamespace.calDAV, "calendar-data") || property.is(DAVNamespace.dav, "getetag") {
                    response.propstatStatus = code
                }
            }
        }
        return hrefs.map { href in
            var copy = response
            copy.href = href
            return copy
        }
    }

    /// The properties of a 2xx propstat.
    private static func read(_ prop: XMLTree, into response: inout DAVResponse) {
        for property in prop.children {
            switch (property.namespace ?? "", property.name) {
            case (DAVNamespace.dav, "getetag"):
                response.etag = nonEmpty(property.trimmedText)
            case (DAVNamespace.calDAV, "calendar-data"):
                response.calendarData = property.text
            case (DAVNamespace.dav, "resourcetype"):
                response.isCollection = property.child(DAVNamespace.dav, "collection") != nil
                response.isCalendar = property.child(DAVNamespace.calDAV, "calendar") != nil
            case (DAVNamespace.dav, "displayname"):
                response.displayName = nonEmpty(property.trimmedText)
            case (DAVNamespace.appleICal, "calendar-color"):
                response.color = nonEmpty(property.trimmedText)
            case (DAVNamespace.calDAV, "supported-calendar-component-set"):
                response.components = property.children(DAVNamespace.calDAV, "comp").compactMap { $0.attribute("name")?.uppercased() }
            case (DAVNamespace.dav, "current-user-privilege-set"):
                for privilege in property.children(DAVNamespace.dav, "privilege") {
                    response.privileges.formUnion(privilege.children.map(\.name))
                }
            case (DAVNamespace.dav, "current-user-principal"):
                response.principal = property.child(DAVNamespace.dav, "href").map(\.trimmedText).flatMap(nonEmpty)
            case (DAVNamespace.calDAV, "calendar-home-set"):
                response.calendarHomes = property.children(DAVNamespace.dav, "href").map(\.trimmedText).filter { !$0.isEmpty }
            case (DAVNamespace.dav, "sync-token"):
                response.syncToken = nonEmpty(property.trimmedText)
            case (DAVNamespace.calendarServer, "getctag"):
                response.ctag = nonEmpty(property.trimmedText)
            default:
                break
            }
        }
    }
}

/// The preconditions and postconditions an error body names (RFC 4918 16), such as
/// "valid-sync-token" (RFC 6578 3.2), "number-of-matches-within-limits" or "supported-report".
public enum DAVCondition {
    /// The namespaces whose elements in a `DAV:error` are conditions; SabreDAV adds its own
    /// `s:exception` and `s:message` beside them, which are not.
    static let namespaces: Set<String> = [DAVNamespace.dav, DAVNamespace.calDAV, DAVNamespace.cardDAV, DAVNamespace.calendarServer]

    /// The local names of the conditions in every `DAV:error` of `body` (the root of an error
    /// answer, or inside a multistatus response); none when it is not such XML.
    public static func names(in body: [UInt8]) -> [String] {
        guard let root = try? XMLTree.parse(body) else { return [] }
        var names: [String] = []
        collect(root, into: &names)
        return names
    }

    private static func collect(_ element: XMLTree, into names: inout [String]) {
        if element.is(DAVNamespace.dav, "error") {
            names += element.children.filter { namespaces.contains($0.namespace ?? "") }.map(\.name)
            return
        }
        for child in element.children { collect(child, into: &names) }
    }
}

extension XMLTree {
    /// The element's name as a user can look it up: `DAV:error`, `{urn:x}thing`, `html`.
    var qualifiedName: String {
        guard let namespace else { return name }
        return namespace == DAVNamespace.dav ? "DAV:" + name : "{\(namespace)}\(name)"
    }
}
