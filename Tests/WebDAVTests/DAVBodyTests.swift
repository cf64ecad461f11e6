import Testing
@testable import WebDAV

struct DAVBodyTests {
    /// The namespace and name of each property a PROPFIND body asks for.
    func properties(_ body: [UInt8]) throws -> [String] {
        let tree = try XMLTree.parse(body)
        #expect(tree.is(DAVNamespace.dav, "propfind"))
        let prop = try #require(tree.child(DAVNamespace.dav, "prop"))
        #expect(prop.children.allSatisfy { $0.children.isEmpty && $0.text.isEmpty })
        return prop.children.map { "\($0.namespace ?? "")\($0.name)" }
    }

    @Test func propfindBodiesAskForWhatChimeReads() throws {
        #expect(try properties(DAVBody.currentUserPrincipal()) == ["DAV:current-user-principal"])
        #expect(try properties(DAVBody.calendarHome()) == ["urn:ietf:params:xml:ns:caldavcalendar-home-set"])
        #expect(try properties(DAVBody.calendars()) == [
            "DAV:resourcetype", "DAV:displayname", "urn:ietf:params:xml:ns:caldavsupported-calendar-component-set",
            "DAV:current-user-privilege-set", "http://apple.com/ns/ical/calendar-color", "http://calendarserver.org/ns/getctag",
            "DAV:sync-token",
        ])
        #expect(try properties(DAVBody.etags()) == ["DAV:getetag", "DAV:resourcetype"])
    }

    @Test func bodiesDeclareUTF8AndOnlyTheNamespacesTheyUse() {
        for body in [DAVBody.currentUserPrincipal(), DAVBody.calendarHome(), DAVBody.calendars(), DAVBody.etags(),
                     DAVBody.syncCollection(token: nil), DAVBody.multiget(hrefs: ["/a"])] {
            let text = String(decoding: body, as: UTF8.self)
            #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"))
            #expect(text.contains("xmlns:cs=") == text.contains("<cs:"))
            #expect(text.contains("xmlns:ical=") == text.contains("<ical:"))
            #expect(text.contains("xmlns:c=") == text.contains("<c:"))
        }
    }

    @Test(arguments: [nil, ""] as [String?])
    func anInitialSyncSendsAnEmptyToken(_ token: String?) throws {
        let tree = try XMLTree.parse(DAVBody.syncCollection(token: token))
        #expect(tree.is(DAVNamespace.dav, "sync-collection"))
        let sent = try #require(tree.child(DAVNamespace.dav, "sync-token"))
        #expect(sent.text.isEmpty && sent.children.isEmpty)
        #expect(tree.child(DAVNamespace.dav, "sync-level")?.text == "1")
        #expect(tree.child(DAVNamespace.dav, "prop")?.children.map(\.name) == ["getetag"])
        // RFC 6578 3.2: sync-token, then sync-level, then prop.
        #expect(tree.children.map(\.name) == ["sync-token", "sync-level", "prop"])
    }

    @Test(arguments: ["http://radicale.org/ns/sync/c0ed89c4", "http://sabre.io/ns/sync/17", "data:,a&b<c>\"d'", "tab\there"])
    func aTokenIsSentAsTheServerGaveIt(_ token: String) throws {
        let tree = try XMLTree.parse(DAVBody.syncCollection(token: token))
        let expected = token.replacing("\t", with: "%09")
        #expect(tree.child(DAVNamespace.dav, "sync-token")?.text == expected)
    }

    @Test func aMultigetListsEachHrefAsGivenAfterItsProperties() throws {
        let hrefs = ["/alice/personal%20cal/a.ics", "/cal/my event & more.ics", "/cal/<x>\"'.ics", "/cal/café.ics",
                     "http://h/cal/full.ics", "/cal/control\u{1}.ics"]
        let tree = try XMLTree.parse(DAVBody.multiget(hrefs: hrefs))
        #expect(tree.is(DAVNamespace.calDAV, "calendar-multiget"))
        #expect(tree.children.first?.is(DAVNamespace.dav, "prop") == true)
        #expect(tree.child(DAVNamespace.dav, "prop")?.children.map { "\($0.namespace ?? "")\($0.name)" }
            == ["DAV:getetag", "urn:ietf:params:xml:ns:caldavcalendar-data"])
        #expect(tree.children(DAVNamespace.dav, "href").map(\.text) == Array(hrefs.dropLast()) + ["/cal/control%01.ics"])
    }

    @Test func aMultigetOfNoHrefsIsStillXML() throws {
        let tree = try XMLTree.parse(DAVBody.multiget(hrefs: []))
        #expect(tree.children(DAVNamespace.dav, "href").isEmpty)
    }
}
