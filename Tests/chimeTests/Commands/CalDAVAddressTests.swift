import Testing
@testable import chime

/// A CalDAV address looked at before its password is asked for.
struct CalDAVAddressTests {
    @Test(arguments: [
        ("https://cloud.example.org/", "cloud.example.org"), ("http://127.0.0.1:5232/", "127.0.0.1:5232"),
        ("https://alice@dav.example.org:8443/dav/?x#y", "dav.example.org:8443"), ("https://[::1]:5232", "[::1]:5232"), ("cloud", ""),
    ])
    func theHostIsWhatThePromptNames(url: String, host: String) {
        #expect(CalDAVAddress.host(url) == host)
    }

    @Test(arguments: ["https://cloud.example.org/", "HTTPS://cloud.example.org", "http://127.0.0.1:5232/", "http://localhost/dav/",
                      "http://[::1]:5232/"])
    func anAddressChimedTakesIsLetThrough(url: String) {
        #expect(CalDAVAddress.problem(url) == nil)
    }

    @Test func plainHTTPToAnotherMachineAndWhatIsNoAddressAreRefusedFirst() {
        #expect(CalDAVAddress.problem("http://dav.example.org/")
                == "'http://dav.example.org/' is plain http, which would send the password unencrypted; use https://.")
        #expect(CalDAVAddress.problem("http://127.0.0.1.example.org/") != nil)
        #expect(CalDAVAddress.problem("http://alice@127.0.0.2:8080/") == nil)
        #expect(CalDAVAddress.problem("~/.calendars/personal")
                == "'~/.calendars/personal' is not an https:// address; a folder of .ics files is given with --vdir DIR.")
        #expect(CalDAVAddress.problem("https://") != nil)
    }
}
