import Testing
@testable import WebDAV

struct DAVURLTests {
    // MARK: - resolve

    @Test(arguments: [
        // RFC 3986 5.4.1's normal examples, against its base; an empty path is written "/".
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g/"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q"),
        ("g#s", "http://a/b/c/g"), (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"), ("../", "http://a/b/"),
        ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"), ("../../g", "http://a/g"),
        // 5.4.2's abnormal ones.
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"), ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("http://a/b/c/g", "http://a/b/c/g"),
    ])
    func referencesResolveAsRFC3986Says(_ reference: String, _ expected: String) {
        #expect(DAVURL.resolve(reference, against: "http://a/b/c/d;p?q") == expected)
    }

    @Test(arguments: [
        // Radicale, SabreDAV and xandikos write absolute paths.
        ("/alice/personal%20cal/a.ics", "http://127.0.0.1:5232/alice/", "http://127.0.0.1:5232/alice/personal%20cal/a.ics"),
        ("/remote.php/dav/calendars/alice/", "https://cloud.example.org/remote.php/dav/", "https://cloud.example.org/remote.php/dav/calendars/alice/"),
        // iCloud sends calendar homes on another host as full URLs.
        ("https://p01-caldav.icloud.com/123/calendars/", "https://caldav.icloud.com/123/principal/", "https://p01-caldav.icloud.com/123/calendars/"),
        ("a.ics", "https://h/cal/", "https://h/cal/a.ics"),
        ("a.ics", "https://h/cal", "https://h/a.ics"),
        ("//other.example:8443/x", "https://h/", "https://other.example:8443/x"),
        // Pretty-printed white space around an href.
        ("\n   /cal/a.ics\n  ", "http://h/", "http://h/cal/a.ics"),
        // Written raw, which some servers do: encoded so that libcurl takes the URL.
        ("/cal/my event.ics", "http://h/", "http://h/cal/my%20event.ics"),
        ("/cal/café.ics", "http://h/", "http://h/cal/caf%C3%A9.ics"),
        ("/cal/100%.ics", "http://h/", "http://h/cal/100%25.ics"),
        ("/cal/a\"b<c>.ics", "http://h/", "http://h/cal/a%22b%3Cc%3E.ics"),
        // Encoded already: kept as written, lower-case hex too.
        ("/cal/caf%c3%a9.ics", "http://h/", "http://h/cal/caf%c3%a9.ics"),
        ("/cal/a%2Fb.ics", "http://h/", "http://h/cal/a%2Fb.ics"),
        ("/cal/x.ics?raw=a b", "http://h/", "http://h/cal/x.ics?raw=a%20b"),
        ("HTTPS://H/x", "http://h/", "https://H/x"),
        ("http://mallory:secret@h:8080/x", "http://h/", "http://h:8080/x"),
        ("/x", "https://alice@h/cal/", "https://h/x"),
    ])
    func hrefsAsServersWriteThemResolve(_ href: String, _ base: String, _ expected: String) {
        #expect(DAVURL.resolve(href, against: base) == expected)
    }

    @Test(arguments: [
        ("mailto:alice@example.org", "http://h/"), ("ftp://h/x", "http://h/"), ("/a", "not a URL"), ("/a", "/relative/base/"),
        ("http://", "http://h/"), ("//", "http://h/"), ("http://h:99999/", "http://h/"), ("http://h:port/", "http://h/"),
        ("javascript:alert(1)", "http://h/"),
    ])
    func whatIsNoHTTPResourceResolvesToNothing(_ href: String, _ base: String) {
        #expect(DAVURL.resolve(href, against: base) == nil)
    }

    @Test(arguments: [
        ["/cal/my event.ics", "/cal/my%20event.ics", "http://h:80/cal/my%20event.ics", "/cal/./x/../my%20event.ics"],
        ["/cal/café.ics", "/cal/caf%C3%A9.ics", "/cal/caf%c3%a9.ics"],
        ["/~alice/cal/", "/%7Ealice/cal", "/%7ealice/cal//"],
    ])
    func hrefsWrittenDifferentlyMeetInOneKey(_ hrefs: [String]) throws {
        let urls = try hrefs.map { try #require(DAVURL.resolve($0, against: "http://h/")) }
        #expect(Set(urls.map(DAVURL.collectionKey)).count == 1, "\(urls.map(DAVURL.collectionKey))")
        for url in urls {
            // Resolved again, a resolved URL and its path are what they were.
            #expect(DAVURL.resolve(url, against: "http://other/") == url)
            let path = try #require(DAVURL.path(of: url))
            #expect(DAVURL.resolve(path, against: url) == url)
        }
    }

    // MARK: - sameOrigin

    @Test(arguments: [
        ("http://H:80/a", "http://h/b", true),
        ("https://cloud.example.org/x", "HTTPS://Cloud.Example.ORG:443/y", true),
        ("http://alice@h/", "http://h/", true),
        ("http://[::1]:5232/", "http://[::1]:5232/a", true),
        ("http://h/", "https://h/", false),
        ("http://h:8080/", "http://h/", false),
        ("https://caldav.icloud.com/", "https://p01-caldav.icloud.com/", false),
        ("http://h/", "/relative", false),
        ("http://h/", "not a url", false),
    ])
    func originsAreSchemeHostAndPort(_ a: String, _ b: String, _ same: Bool) {
        #expect(DAVURL.sameOrigin(a, b) == same)
        #expect(DAVURL.sameOrigin(b, a) == same)
    }

    // MARK: - path

    @Test(arguments: [
        ("http://h:1/a/b?q=1#f", "/a/b"), ("https://h", "/"), ("http://h?x", "/"), ("/abs/path?x", "/abs/path"),
        ("http://h/caf%C3%A9/", "/caf%C3%A9/"),
    ] as [(String, String?)])
    func thePathOfAURLIsItsPathAsWritten(_ url: String, _ path: String?) {
        #expect(DAVURL.path(of: url) == path)
    }

    @Test(arguments: ["relative/path", "mailto:a@b", "//h/x", ""])
    func whatHasNoAbsolutePathHasNone(_ url: String) {
        #expect(DAVURL.path(of: url) == nil)
    }

    // MARK: - collectionKey

    @Test(arguments: [
        ("HTTP://Example.COM/Cal/", "http://example.com:80/Cal"),
        ("https://h/%7ealice/cal/?x#y", "https://h:443/~alice/cal"),
        ("http://h/a/%2f/", "http://h:80/a/%2F"),
        ("http://h:8080/a/./b/../c//", "http://h:8080/a/c"),
        ("http://h/", "http://h:80"),
        ("http://h", "http://h:80"),
        ("http://user:secret@h/cal/", "http://h:80/cal"),
        ("/alice/personal%20cal/", "/alice/personal%20cal"),
        ("/alice/personal cal/", "/alice/personal%20cal"),
    ])
    func collectionKeysAreNormalized(_ url: String, _ key: String) {
        #expect(DAVURL.collectionKey(url) == key)
    }

    @Test func pathsDifferingInCaseOrEscapedSlashAreDifferentCollections() {
        #expect(DAVURL.collectionKey("http://h/Cal/") != DAVURL.collectionKey("http://h/cal/"))
        #expect(DAVURL.collectionKey("http://h/a%2Fb/") != DAVURL.collectionKey("http://h/a/b/"))
        #expect(DAVURL.collectionKey("http://h:8080/cal/") != DAVURL.collectionKey("http://h/cal/"))
    }

    // MARK: - isLoopback

    @Test(arguments: [
        "http://127.0.0.1:5232/", "http://127.1.2.3/", "http://localhost/", "http://LOCALHOST:8080/x", "http://localhost./",
        "http://[::1]:5232/", "http://[0:0:0:0:0:0:0:1]/", "http://[::ffff:127.0.0.1]/", "http://evil.example@127.0.0.1/",
        "https://127.0.0.1",
    ])
    func loopbackHostsAreLoopback(_ url: String) {
        #expect(DAVURL.isLoopback(url))
    }

    @Test(arguments: [
        "http://128.0.0.1/", "http://localhost.evil.example/", "http://evil.localhost/", "http://127.0.0.1.nip.io/",
        "http://127.0.0.1@evil.example/", "http://[::2]/", "http://[::ffff:10.0.0.1]/", "http://example.com/",
        "http://127.1/", "http://127.0.0.256/", "127.0.0.1", "/relative", "http://[::1/", "http://[1:2:3:4:5:6:7:8:9]/",
    ])
    func otherHostsAreNot(_ url: String) {
        #expect(!DAVURL.isLoopback(url))
    }

    /// A calendar is called after its address's last segment, decoded where that makes UTF-8.
    @Test(arguments: [
        ("https://h/dav/calendars/alice/personal/", "personal"),
        ("https://h/dav/Work%20%26%20Life", "Work & Life"),
        ("https://h/dav/caf%C3%A9", "café"),
        ("https://h/dav/100%", "100%"),
        ("https://h/dav/a%ZZb", "a%ZZb"),
        ("https://h/dav/bad%FF", "bad%FF"),
    ])
    func theLastSegmentIsDecodedWhereItMakesText(_ url: String, _ segment: String) {
        #expect(DAVURL.lastSegment(of: url) == segment)
    }
}
