import Foundation
import Testing
@testable import WebDAV

struct HTTPResponseTests {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    func response(retryAfter: String) -> HTTPResponse {
        HTTPResponse(status: 503, headers: ["retry-after": retryAfter], url: "https://example.org/")
    }

    @Test(arguments: [
        ("120", 120),
        (" 7 ", 7),
        ("0", 0),
        ("Sun, 06 Nov 1994 08:51:37 GMT", 120),
        ("Sunday, 06-Nov-94 08:50:37 GMT", 60),
        ("Sun Nov  6 08:49:47 1994", 10),
        ("Sat, 05 Nov 1994 08:49:37 GMT", 0),
        ("Thu, 01 Jan 1998 00:00:00 GMT", 99_501_023),
    ])
    func retryAfterReadsSecondsAndDates(field: String, seconds: Int) {
        #expect(response(retryAfter: field).retryAfterSeconds(now: now) == seconds)
    }

    @Test(arguments: ["soon", "-5", "1.5", "Sun, 06 Nov 1994 25:00:00 GMT", "Sun, 31 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 CET"])
    func retryAfterIgnoresWhatItCannotRead(field: String) {
        #expect(response(retryAfter: field).retryAfterSeconds(now: now) == nil)
    }

    @Test func retryAfterIsNilWithoutTheField() {
        #expect(HTTPResponse(status: 503, url: "https://example.org/").retryAfterSeconds(now: now) == nil)
    }

    @Test func aHugeDelayIsSaturatedNotACrash() {
        #expect(response(retryAfter: String(repeating: "9", count: 40)).retryAfterSeconds(now: now) == 1 << 40)
    }

    @Test func headerNamesAreLookedUpInAnyCase() {
        let response = HTTPResponse(status: 200, headers: ["etag": "\"1\""], url: "https://example.org/")
        #expect(response.header("ETag") == "\"1\"")
        #expect(response.header("If-Match") == nil)
    }
}
