import Foundation
import Testing
@testable import WebDAV

// Ten minutes, though each test takes milliseconds: a time limit also counts the wait for one of
// the runner's threads, which the end-to-end suites hold for seconds at a time.
@Suite(.timeLimit(.minutes(10)))
struct MultistatusTests {
    func parse(_ text: String) throws(DAVFailure) -> Multistatus {
        try Multistatus.parse(Array(text.utf8))
    }

    // MARK: - The RFCs' examples

    @Test func aCalendarMultigetAnswerOfRFC4791() throws {
        // RFC 4791 7.9.1: one member found, one not.
        let multistatus = try parse("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:multistatus xmlns:D="DAV:"
                           xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:response>
                <D:href>http://cal.example.com/bernard/work/abcd1.ics</D:href>
                <D:propstat>
                  <D:prop>
                    <D:getetag>"fffff-abcd1"</D:getetag>
                    <C:calendar-data>BEGIN:VCALENDAR
            VERSION:2.0
            PRODID:-//Example Corp.//CalDAV Client//EN
            BEGIN:VEVENT
            UID:abcd1@example.com
            SUMMARY:Design meeting
            END:VEVENT
            END:VCALENDAR
            </C:calendar-data>
                  </D:prop>
                  <D:status>HTTP/1.1 200 OK</D:status>
                </D:propstat>
              </D:response>
              <D:response>
                <D:href>http://cal.example.com/bernard/work/mtg1.ics</D:href>
                <D:status>HTTP/1.1 404 Not Found</D:status>
              </D:response>
            </D:multistatus>
            """)
        #expect(multistatus.responses.count == 2)
        let found = multistatus.responses[0]
        #expect(found.href == "http://cal.example.com/bernard/work/abcd1.ics")
        #expect(found.etag == "\"fffff-abcd1\"")
        #expect(found.status == nil)
        #expect(found.calendarData?.hasPrefix("BEGIN:VCALENDAR\nVERSION:2.0\n") == true)
        #expect(found.calendarData?.hasSuffix("END:VCALENDAR\n") == true)
        #expect(found.calendarData?.contains("UID:abcd1@example.com") == true)
        let gone = multistatus.responses[1]
        #expect(gone.href == "http://cal.example.com/bernard/work/mtg1.ics")
        #expect(gone.status == 404 && gone.etag == nil && gone.calendarData == nil)
        #expect(multistatus.syncToken == nil)
    }

    /// RFC 6578 3.8's first answer, with the members it lists.
    static let initialSync = """
        <?xml version="1.0" encoding="utf-8" ?>
        <D:multistatus xmlns:D="DAV:">
          <D:response>
            <D:href
        >http://webdav.example.com/home/cyrusdaboo/test.doc</D:href>
            <D:propstat>
              <D:prop>
                <D:getetag>"00001-abcd1"</D:getetag>
                <R:bigbox xmlns:R="urn:ns.example.com:boxschema">
                  <R:BoxType>Box type A</R:BoxType>
                </R:bigbox>
              </D:prop>
              <D:status>HTTP/1.1 200 OK</D:status>
            </D:propstat>
          </D:response>
          <D:response>
            <D:href
        >http://webdav.example.com/home/cyrusdaboo/vcard.vcf</D:href>
            <D:propstat>
              <D:prop>
                <D:getetag>"00002-abcd1"</D:getetag>
              </D:prop>
              <D:status>HTTP/1.1 200 OK</D:status>
            </D:propstat>
            <D:propstat>
              <D:prop>
                <R:bigbox xmlns:R="urn:ns.example.com:boxschema"/>
              </D:prop>
              <D:status>HTTP/1.1 404 Not Found</D:status>
            </D:propstat>
          </D:response>
          <D:response>
            <D:href
        >http://webdav.example.com/home/cyrusdaboo/mytest/</D:href>
            <D:propstat>
              <D:prop>
                <D:resourcetype><D:collection/></D:resourcetype>
              </D:prop>
              <D:status>HTTP/1.1 200 OK</D:status>
            </D:propstat>
          </D:response>
          <D:sync-token>http://example.com/ns/sync/1234</D:sync-token>
        </D:multistatus>
        """

    @Test func theInitialSyncCollectionAnswerOfRFC6578() throws {
        let multistatus = try parse(Self.initialSync)
        #expect(multistatus.syncToken == "http://example.com/ns/sync/1234")
        #expect(multistatus.responses.map(\.href) == [
            "http://webdav.example.com/home/cyrusdaboo/test.doc",
            "http://webdav.example.com/home/cyrusdaboo/vcard.vcf",
            "http://webdav.example.com/home/cyrusdaboo/mytest/",
        ])
        #expect(multistatus.responses.map(\.etag) == ["\"00001-abcd1\"", "\"00002-abcd1\"", nil])
        #expect(multistatus.responses.map(\.missing) == [[], ["bigbox"], []])
        #expect(multistatus.responses.map(\.isCollection) == [false, false, true])
        // A 404 for a property is no 404 for the member.
        #expect(multistatus.responses.allSatisfy { $0.status == nil && $0.propstatStatus == nil })
    }

    @Test func anIncrementalSyncReportsARemovedMemberAs404() throws {
        // RFC 6578 3.8's second answer.
        let multistatus = try parse("""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:multistatus xmlns:D="DAV:">
              <D:response>
                <D:href>http://webdav.example.com/home/cyrusdaboo/file.xml</D:href>
                <D:propstat>
                  <D:prop><D:getetag>"00003-abcd1"</D:getetag></D:prop>
                  <D:status>HTTP/1.1 200 OK</D:status>
                </D:propstat>
              </D:response>
              <D:response>
                <D:href>http://webdav.example.com/home/cyrusdaboo/vcard.vcf</D:href>
                <D:status>HTTP/1.1 404 Not Found</D:status>
              </D:response>
              <D:sync-token>http://example.com/ns/sync/1238</D:sync-token>
            </D:multistatus>
            """)
        #expect(multistatus.syncToken == "http://example.com/ns/sync/1238")
        #expect(multistatus.responses.map(\.status) == [nil, 404])
        #expect(multistatus.responses.map(\.etag) == ["\"00003-abcd1\"", nil])
    }

    @Test func aTruncatedSyncNamesItsConditionInTheCollectionsResponse() throws {
        // RFC 6578 3.6: a server that stops early answers 507 for the collection itself.
        let body = """
            <D:multistatus xmlns:D="DAV:">
              <D:response>
                <D:href>http://webdav.example.com/home/cyrusdaboo/a.ics</D:href>
                <D:propstat><D:prop><D:getetag>"1"</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
              </D:response>
              <D:response>
                <D:href>http://webdav.example.com/home/cyrusdaboo/</D:href>
                <D:status>HTTP/1.1 507 Insufficient Storage</D:status>
                <D:error><D:number-of-matches-within-limits/></D:error>
              </D:response>
              <D:sync-token>http://example.com/ns/sync/1233</D:sync-token>
            </D:multistatus>
            """
        let multistatus = try parse(body)
        #expect(multistatus.responses.map(\.status) == [nil, 507])
        #expect(DAVCondition.names(in: Array(body.utf8)) == ["number-of-matches-within-limits"])
    }

    @Test func severalHrefsUnderOneStatusAreOneResponseEach() throws {
        // RFC 4918 14.24: response is href, then either more hrefs and one status, or propstats.
        let multistatus = try parse("""
            <d:multistatus xmlns:d="DAV:"><d:response>
            <d:href>/cal/a.ics</d:href><d:href>/cal/b.ics</d:href>
            <d:status>HTTP/1.1 404 Not Found</d:status>
            </d:response></d:multistatus>
            """)
        #expect(multistatus.responses.map(\.href) == ["/cal/a.ics", "/cal/b.ics"])
        #expect(multistatus.responses.map(\.status) == [404, 404])
    }

    // MARK: - As servers write them

    /// Radicale 3.1.8's answers, captured here: a default namespace for DAV:, C:, CS: and
    /// ICAL: for the others, empty elements written `<x />`, a 404 propstat for what a
    /// collection lacks, and the sync-token before the responses.
    static let radicaleCalendars = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:CS="http://calendarserver.org/ns/" xmlns:ICAL="http://apple.com/ns/ical/"><response><href>/alice/</href><propstat><prop><resourcetype><principal /><collection /></resourcetype><current-user-privilege-set><privilege><read /></privilege><privilege><all /></privilege><privilege><write /></privilege><privilege><write-properties /></privilege><privilege><write-content /></privilege></current-user-privilege-set></prop><status>HTTP/1.1 200 OK</status></propstat><propstat><prop><displayname /><C:supported-calendar-component-set /><ICAL:calendar-color /><CS:getctag /><sync-token /></prop><status>HTTP/1.1 404 Not Found</status></propstat></response><response><href>/alice/personal%20cal/</href><propstat><prop><resourcetype><C:calendar /><collection /></resourcetype><displayname>alice/personal cal</displayname><C:supported-calendar-component-set><C:comp name="VTODO" /><C:comp name="VEVENT" /><C:comp name="VJOURNAL" /></C:supported-calendar-component-set><current-user-privilege-set><privilege><read /></privilege><privilege><all /></privilege><privilege><write /></privilege><privilege><write-properties /></privilege><privilege><write-content /></privilege></current-user-privilege-set><CS:getctag>"ad49eb5b5955215df99316dd4d9e833845178679342d6905cbd86242ce801d3c"</CS:getctag><sync-token>http://radicale.org/ns/sync/c0ed89c48ccebec8886da13b9965d4912f91d5aaa00cbbe54180db7b3890e2da</sync-token></prop><status>HTTP/1.1 200 OK</status></propstat><propstat><prop><ICAL:calendar-color /></prop><status>HTTP/1.1 404 Not Found</status></propstat></response></multistatus>
        """

    @Test func radicalesCalendarHome() throws {
        let multistatus = try parse(Self.radicaleCalendars)
        let home = multistatus.responses[0], calendar = multistatus.responses[1]
        #expect(home.href == "/alice/" && home.isCollection && !home.isCalendar)
        #expect(home.missing == ["displayname", "supported-calendar-component-set", "calendar-color", "getctag", "sync-token"])
        #expect(home.syncToken == nil && home.ctag == nil && home.components.isEmpty)
        // The href percent-encoded; the displayname is the path, which Radicale 3.1.8 gives
        // a calendar made without one.
        #expect(calendar.href == "/alice/personal%20cal/")
        #expect(calendar.isCollection && calendar.isCalendar)
        #expect(calendar.displayName == "alice/personal cal")
        #expect(calendar.components == ["VTODO", "VEVENT", "VJOURNAL"])
        #expect(calendar.privileges == ["read", "all", "write", "write-properties", "write-content"])
        // Radicale quotes its ctag as it quotes ETags.
        #expect(calendar.ctag == "\"ad49eb5b5955215df99316dd4d9e833845178679342d6905cbd86242ce801d3c\"")
        #expect(calendar.syncToken == "http://radicale.org/ns/sync/c0ed89c48ccebec8886da13b9965d4912f91d5aaa00cbbe54180db7b3890e2da")
        #expect(calendar.missing == ["calendar-color"] && calendar.color == nil)
    }

    /// xandikos 0.2.8's answer, captured here: ElementTree's prefixes (ns0: for DAV:, the
    /// others numbered in order of use), no XML declaration, the status before the prop, a
    /// bare hash as ctag and sync token, and "all" as the only privilege.
    static let xandikosCalendars = """
        <ns0:multistatus xmlns:ns0="DAV:" xmlns:ns1="http://calendarserver.org/ns/" xmlns:ns2="urn:ietf:params:xml:ns:caldav" xmlns:ns3="http://apple.com/ns/ical/"><ns0:response><ns0:href>/user/calendars/</ns0:href><ns0:propstat><ns0:status>HTTP/1.1 200 OK</ns0:status><ns0:prop><ns0:resourcetype><ns0:collection /></ns0:resourcetype><ns0:displayname>calendars</ns0:displayname><ns0:current-user-privilege-set><ns0:privilege><ns0:all /></ns0:privilege></ns0:current-user-privilege-set><ns1:getctag>4b825dc642cb6eb9a060e54bf8d69288fbee4904</ns1:getctag><ns0:sync-token>4b825dc642cb6eb9a060e54bf8d69288fbee4904</ns0:sync-token></ns0:prop></ns0:propstat><ns0:propstat><ns0:status>HTTP/1.1 404 Not Found</ns0:status><ns0:prop><ns2:supported-calendar-component-set /><ns3:calendar-color /></ns0:prop></ns0:propstat></ns0:response><ns0:response><ns0:href>/user/calendars/calendar/</ns0:href><ns0:propstat><ns0:status>HTTP/1.1 200 OK</ns0:status><ns0:prop><ns0:resourcetype><ns0:collection /><ns2:calendar /></ns0:resourcetype><ns0:displayname>calendar</ns0:displayname><ns2:supported-calendar-component-set><ns2:comp name="VEVENT" /><ns2:comp name="VTODO" /><ns2:comp name="VJOURNAL" /><ns2:comp name="VFREEBUSY" /></ns2:supported-calendar-component-set><ns0:current-user-privilege-set><ns0:privilege><ns0:all /></ns0:privilege></ns0:current-user-privilege-set><ns1:getctag>ae4423fea231573dd53ab2567fdc26cd3f98a7ca</ns1:getctag><ns0:sync-token>ae4423fea231573dd53ab2567fdc26cd3f98a7ca</ns0:sync-token></ns0:prop></ns0:propstat><ns0:propstat><ns0:status>HTTP/1.1 404 Not Found</ns0:status><ns0:prop><ns3:calendar-color /></ns0:prop></ns0:propstat></ns0:response></ns0:multistatus>
        """

    @Test func xandikossCalendarHome() throws {
        let multistatus = try parse(Self.xandikosCalendars)
        #expect(multistatus.responses.map(\.href) == ["/user/calendars/", "/user/calendars/calendar/"])
        let calendar = multistatus.responses[1]
        #expect(calendar.isCalendar && calendar.displayName == "calendar")
        #expect(calendar.components == ["VEVENT", "VTODO", "VJOURNAL", "VFREEBUSY"])
        #expect(calendar.privileges == ["all"])
        #expect(calendar.ctag == "ae4423fea231573dd53ab2567fdc26cd3f98a7ca" && calendar.syncToken == calendar.ctag)
        #expect(multistatus.responses[0].missing == ["supported-calendar-component-set", "calendar-color"])
    }

    @Test func aCalendarHomeWithSabreDAVsPrefixesAndColors() throws {
        // In the shape SabreDAV (Nextcloud) gives its answers: d:, cal:, cs:, x1: for Apple's
        // namespace, pretty-printed; then one as iCloud writes Apple's color, in a default
        // namespace with an attribute. Not captured here: no such server runs on this machine.
        let multistatus = try parse("""
            <?xml version="1.0"?>
            <d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:cal="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
             <d:response>
              <d:href>/remote.php/dav/calendars/alice/personal/</d:href>
              <d:propstat>
               <d:prop>
                <d:resourcetype>
                 <d:collection/>
                 <cal:calendar/>
                </d:resourcetype>
                <d:displayname>Personal</d:displayname>
                <cal:supported-calendar-component-set>
                 <cal:comp name="VEVENT"/>
                 <cal:comp name="vtodo"/>
                </cal:supported-calendar-component-set>
                <d:current-user-privilege-set>
                 <d:privilege>
                  <d:write/>
                 </d:privilege>
                 <d:privilege>
                  <cal:read-free-busy/>
                 </d:privilege>
                </d:current-user-privilege-set>
                <x1:calendar-color xmlns:x1="http://apple.com/ns/ical/">#0082c9</x1:calendar-color>
                <cs:getctag>http://sabre.io/ns/sync/17</cs:getctag>
                <d:sync-token>http://sabre.io/ns/sync/17</d:sync-token>
               </d:prop>
               <d:status>HTTP/1.1 200 OK</d:status>
              </d:propstat>
             </d:response>
             <response xmlns="DAV:">
              <href>https://p01-caldav.icloud.com/123/calendars/work/</href>
              <propstat>
               <prop>
                <resourcetype><collection/><calendar xmlns="urn:ietf:params:xml:ns:caldav"/></resourcetype>
                <calendar-color xmlns="http://apple.com/ns/ical/" symbolic-color="red">#FF2968FF</calendar-color>
                <displayname>  Work  </displayname>
               </prop>
               <status>HTTP/1.1 200 OK</status>
              </propstat>
             </response>
            </d:multistatus>
            """)
        let nextcloud = multistatus.responses[0]
        #expect(nextcloud.isCalendar && nextcloud.isCollection && nextcloud.displayName == "Personal")
        #expect(nextcloud.components == ["VEVENT", "VTODO"])
        #expect(nextcloud.privileges == ["write", "read-free-busy"])
        #expect(nextcloud.color == "#0082c9")
        #expect(nextcloud.ctag == "http://sabre.io/ns/sync/17" && nextcloud.syncToken == "http://sabre.io/ns/sync/17")
        let icloud = multistatus.responses[1]
        #expect(icloud.href == "https://p01-caldav.icloud.com/123/calendars/work/")
        #expect(icloud.isCalendar && icloud.color == "#FF2968FF" && icloud.displayName == "Work")
    }

    @Test func principalAndHomeAsRadicaleAndXandikosWriteThem() throws {
        // Radicale 3.1.8 and xandikos 0.2.8, captured here.
        let radicalePrincipal = try parse("""
            <?xml version='1.0' encoding='utf-8'?>
            <multistatus xmlns="DAV:"><response><href>/</href><propstat><prop><current-user-principal><href>/alice/</href></current-user-principal></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
            """)
        #expect(radicalePrincipal.responses.map(\.principal) == ["/alice/"])
        let xandikosHome = try parse("""
            <ns0:multistatus xmlns:ns0="DAV:" xmlns:ns1="urn:ietf:params:xml:ns:caldav"><ns0:response><ns0:href>/user/</ns0:href><ns0:propstat><ns0:status>HTTP/1.1 200 OK</ns0:status><ns0:prop><ns1:calendar-home-set><ns0:href>/user/calendars/</ns0:href></ns1:calendar-home-set></ns0:prop></ns0:propstat></ns0:response></ns0:multistatus>
            """)
        #expect(xandikosHome.responses.map(\.calendarHomes) == [["/user/calendars/"]])
        // Several homes, one of them on another host; and a principal for no one.
        let several = try parse("""
            <D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:response><D:href>/p/</D:href><D:propstat><D:prop>
            <D:current-user-principal><D:unauthenticated/></D:current-user-principal>
            <C:calendar-home-set><D:href> /home/a/ </D:href><D:href>https://other.example/home/</D:href></C:calendar-home-set>
            </D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></D:multistatus>
            """)
        #expect(several.responses[0].principal == nil)
        #expect(several.responses[0].calendarHomes == ["/home/a/", "https://other.example/home/"])
    }

    @Test func etagsAreKeptAsSent() throws {
        // Radicale, xandikos and SabreDAV quote; a weak tag and a bare one are kept too, for
        // the caller compares them and sends them back.
        let multistatus = try parse("""
            <d:multistatus xmlns:d="DAV:">
            <d:response><d:href>/a</d:href><d:propstat><d:prop><d:getetag>"abc"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/b</d:href><d:propstat><d:prop><d:getetag>&quot;def&quot;</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/c</d:href><d:propstat><d:prop><d:getetag>W/"ghi"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/d</d:href><d:propstat><d:prop><d:getetag>
              jkl
            </d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            <d:response><d:href>/e</d:href><d:propstat><d:prop><d:getetag/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
            </d:multistatus>
            """)
        #expect(multistatus.responses.map(\.etag) == ["\"abc\"", "\"def\"", "W/\"ghi\"", "jkl", nil])
    }

    @Test func aPropstatThatIsNotASuccessNamesItsStatus() throws {
        let multistatus = try parse("""
            <D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
            <D:response><D:href>/cal/secret.ics</D:href>
              <D:propstat><D:prop><D:getetag>"1"</D:getetag></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
              <D:propstat><D:prop><C:calendar-data/></D:prop><D:status>HTTP/1.1 403 Forbidden</D:status></D:propstat>
            </D:response>
            <D:response><D:href>/cal/gone.ics</D:href>
              <D:propstat><D:prop><D:getetag/><C:calendar-data/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat>
            </D:response>
            <D:response><D:href>/cal/nostatus.ics</D:href>
              <D:propstat><D:prop><D:getetag>"2"</D:getetag></D:prop></D:propstat>
            </D:response>
            </D:multistatus>
            """)
        let secret = multistatus.responses[0]
        #expect(secret.etag == "\"1\"" && secret.calendarData == nil && secret.propstatStatus == 403 && secret.missing.isEmpty)
        let gone = multistatus.responses[1]
        #expect(gone.propstatStatus == 404 && gone.missing == ["getetag", "calendar-data"] && gone.etag == nil)
        // RFC 4918 wants the status; one missing is read as the success it most likely was.
        #expect(multistatus.responses[2].etag == "\"2\"")
    }

    @Test func whatNamesNoResourceOrIsNotDAVIsLeftOut() throws {
        let multistatus = try parse("""
            <multistatus xmlns="DAV:" xmlns:x="urn:x">
            <response><propstat><prop><getetag>"no href"</getetag></prop></propstat></response>
            <response><href>   </href><status>HTTP/1.1 200 OK</status></response>
            <x:response><href>/other-namespace</href></x:response>
            <response><href>/kept</href><status>nonsense</status><x:extra/></response>
            </multistatus>
            """)
        #expect(multistatus.responses.map(\.href) == ["/kept"])
        #expect(multistatus.responses[0].status == nil)
    }

    @Test(arguments: [
        ("HTTP/1.1 200 OK", 200), ("HTTP/1.1 404 Not Found", 404), ("  HTTP/1.0 507\n", 507), ("HTTP/2 201 Created", 201),
        ("200 OK", nil), ("HTTP/1.1 OK", nil), ("HTTP/1.1 99 Low", nil), ("HTTP/1.1 600 High", nil), ("", nil),
    ] as [(String, Int?)])
    func statusLinesAreReadForTheirCode(_ text: String, _ code: Int?) {
        #expect(Multistatus.statusCode(text) == code)
    }

    @Test func anAnswerThatIsNotAMultistatusIsRefused() throws {
        for (text, clause) in [
            (#"<d:error xmlns:d="DAV:"><d:valid-sync-token/></d:error>"#,
             "the server's answer is not a WebDAV multistatus: its root element is DAV:error"),
            ("<html><body>Login</body></html>", "the server's answer is not a WebDAV multistatus: its root element is html"),
            (#"<multistatus xmlns="urn:x"/>"#, "the server's answer is not a WebDAV multistatus: its root element is {urn:x}multistatus"),
        ] {
            #expect(throws: DAVFailure(clause)) { try parse(text) }
        }
        #expect(throws: DAVFailure("the server's answer is larger than 16 bytes, more than Chime reads")) {
            try Multistatus.parse(Array(#"<multistatus xmlns="DAV:"/>"#.utf8), maxBytes: 16)
        }
    }

    @Test func tenThousandResponsesAreRead() throws {
        var body = #"<?xml version="1.0" encoding="utf-8"?><d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav">"#
        for index in 0..<10_000 {
            body += """
                <d:response><d:href>/remote.php/dav/calendars/alice/personal/event-\(index).ics</d:href>\
                <d:propstat><d:prop><d:getetag>"etag-\(index)"</d:getetag>\
                <cal:calendar-data>BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:\(index)@example.org\r\nSUMMARY:Event \(index)\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n</cal:calendar-data>\
                </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
                """
        }
        body += "<d:sync-token>http://sabre.io/ns/sync/10000</d:sync-token></d:multistatus>"
        let multistatus = try parse(body)
        #expect(multistatus.responses.count == 10_000)
        #expect(multistatus.responses.last?.etag == "\"etag-9999\"")
        #expect(multistatus.responses.last?.calendarData?.contains("UID:9999@example.org") == true)
        #expect(multistatus.syncToken == "http://sabre.io/ns/sync/10000")
    }

    // MARK: - Conditions

    @Test func conditionsOfErrorBodiesAreNamed() {
        // Radicale 3.1.8 (captured here), SabreDAV's with its own exception and message
        // beside the condition, a CalDAV precondition, and bodies that name none.
        #expect(DAVCondition.names(in: Array("<?xml version='1.0' encoding='utf-8'?>\n<error xmlns=\"DAV:\"><valid-sync-token /></error>".utf8))
            == ["valid-sync-token"])
        #expect(DAVCondition.names(in: Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <d:error xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns">
              <s:sabredav-version>4.6.0</s:sabredav-version>
              <s:exception>Sabre\\DAV\\Exception\\ReportNotSupported</s:exception>
              <s:message>The {DAV:}sync-collection REPORT is not supported on this url.</s:message>
              <d:supported-report/>
            </d:error>
            """.utf8)) == ["supported-report"])
        #expect(DAVCondition.names(in: Array(#"<D:error xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><C:no-uid-conflict><D:href>/cal/x.ics</D:href></C:no-uid-conflict></D:error>"#.utf8))
            == ["no-uid-conflict"])
        // xandikos 0.2.8 answers a bogus sync token with a 500 in plain text.
        #expect(DAVCondition.names(in: Array("500 Internal Server Error\n\nServer got itself in trouble".utf8)).isEmpty)
        #expect(DAVCondition.names(in: []).isEmpty)
        #expect(DAVCondition.names(in: Array(#"<multistatus xmlns="DAV:"/>"#.utf8)).isEmpty)
    }
}

// MARK: - Radicale

extension MultistatusTests {
    /// Discovery and sync against a running Radicale, each request sent by curl with a body
    /// of ``DAVBody``, each answer read by ``Multistatus``.
    @Suite struct AgainstRadicale {
        @Test func discoveryFindsThePrincipalItsHomeAndItsCalendars() throws {
            let server = try RadicaleServer()
            #expect(try server.send("MKCALENDAR", "/alice/personal%20cal/").status == 201)

            let root = try server.ask("PROPFIND", "/", depth: 0, DAVBody.currentUserPrincipal())
            #expect(root.status == 207, "\(root.text)")
            let principal = try #require(try Multistatus.parse(root.body).responses.first?.principal)
            #expect(principal == "/alice/")

            let principalAnswer = try server.ask("PROPFIND", principal, depth: 0, DAVBody.calendarHome())
            let home = try #require(try Multistatus.parse(principalAnswer.body).responses.first?.calendarHomes.first)
            #expect(home == "/alice/")

            let calendarsAnswer = try server.ask("PROPFIND", home, depth: 1, DAVBody.calendars())
            #expect(calendarsAnswer.status == 207, "\(calendarsAnswer.text)")
            let responses = try Multistatus.parse(calendarsAnswer.body).responses
            let calendar = try #require(responses.first { $0.isCalendar }, "\(calendarsAnswer.text)")
            #expect(calendar.href == "/alice/personal%20cal/")
            #expect(DAVURL.resolve(calendar.href, against: server.url + home) == server.url + "/alice/personal%20cal/")
            #expect(Set(calendar.components).isSuperset(of: ["VEVENT", "VTODO"]))
            #expect(calendar.privileges.isSuperset(of: ["read", "write"]))
            #expect(calendar.syncToken?.isEmpty == false && calendar.ctag?.isEmpty == false)
            #expect(calendar.missing.contains("calendar-color"))
            #expect(responses.contains { $0.href == home && $0.isCollection && !$0.isCalendar })
        }

        @Test func syncCollectionFollowsChangesAndRemovalsAndMultigetBringsTheEvents() throws {
            let server = try RadicaleServer()
            let collection = "/alice/personal/"
            #expect(try server.send("MKCALENDAR", collection).status == 201)
            // A name with a space and one with a non-ASCII letter, which Radicale writes back
            // percent-encoded.
            let names = ["dentist.ics", "barber.ics", "my%20lunch.ics", "caf%C3%A9.ics"]
            for (index, name) in names.enumerated() {
                #expect(try server.put(collection + name, RadicaleServer.event("\(index)@example.org", "Event \(index)")) == 201)
            }

            let initial = try server.ask("REPORT", collection, depth: 0, DAVBody.syncCollection(token: nil))
            #expect(initial.status == 207, "\(initial.text)")
            let first = try Multistatus.parse(initial.body)
            let firstToken = try #require(first.syncToken)
            #expect(Set(first.responses.map(\.href)) == Set(names.map { collection + $0 }))
            #expect(first.responses.allSatisfy { $0.status == nil && $0.etag?.hasPrefix("\"") == true })
            let etags = Dictionary(uniqueKeysWithValues: first.responses.map { ($0.href, $0.etag) })
            #expect(try Multistatus.parse(server.ask("REPORT", collection, depth: 0, DAVBody.syncCollection(token: "")).body).syncToken == firstToken)

            // The same ETags by PROPFIND, for servers without sync-collection.
            let listed = try Multistatus.parse(server.ask("PROPFIND", collection, depth: 1, DAVBody.etags()).body)
            #expect(Dictionary(uniqueKeysWithValues: listed.responses.filter { !$0.isCollection }.map { ($0.href, $0.etag) }) == etags)

            #expect([201, 204].contains(try server.put(collection + "barber.ics", RadicaleServer.event("1@example.org", "Barber moved"))))
            let changed = try Multistatus.parse(server.ask("REPORT", collection, depth: 0, DAVBody.syncCollection(token: firstToken)).body)
            #expect(changed.responses.map(\.href) == [collection + "barber.ics"])
            let newETag = try #require(changed.responses.first?.etag)
            #expect(newETag != etags[collection + "barber.ics"])
            let secondToken = try #require(changed.syncToken)
            #expect(secondToken != firstToken)

            #expect(try server.send("DELETE", collection + "dentist.ics").status == 200)
            let removed = try Multistatus.parse(server.ask("REPORT", collection, depth: 0, DAVBody.syncCollection(token: secondToken)).body)
            #expect(removed.responses.map(\.href) == [collection + "dentist.ics"])
            #expect(removed.responses.first?.status == 404 && removed.responses.first?.etag == nil)

            let invalid = try server.ask("REPORT", collection, depth: 0, DAVBody.syncCollection(token: "http://radicale.org/ns/sync/bogus"))
            #expect(invalid.status == 403)
            #expect(DAVCondition.names(in: invalid.body) == ["valid-sync-token"], "\(invalid.text)")
            #expect(throws: DAVFailure.self) { try Multistatus.parse(invalid.body) }

            // The hrefs as the server wrote them, and the removed one, which it answers 404.
            let asked = [collection + "barber.ics", collection + "my%20lunch.ics", collection + "caf%C3%A9.ics", collection + "dentist.ics"]
            let fetched = try server.ask("REPORT", collection, depth: 1, DAVBody.multiget(hrefs: asked))
            #expect(fetched.status == 207, "\(fetched.text)")
            let events = try Multistatus.parse(fetched.body).responses
            #expect(Set(events.map(\.href)) == Set(asked))
            for response in events where response.href != collection + "dentist.ics" {
                #expect(response.calendarData?.contains("BEGIN:VEVENT") == true, "\(response)")
                #expect(response.etag != nil)
            }
            #expect(events.first { $0.href.hasSuffix("barber.ics") }?.calendarData?.contains("SUMMARY:Barber moved") == true)
            #expect(events.first { $0.href.hasSuffix("barber.ics") }?.etag == newETag)
            #expect(events.first { $0.href.hasSuffix("caf%C3%A9.ics") }?.calendarData?.contains("UID:3@example.org") == true)
            #expect(events.first { $0.href.hasSuffix("dentist.ics") }?.status == 404)
        }
    }
}
