import ChimeCore
import Foundation
import Testing
@testable import ChimeDaemon

/// How a notification's times are written for D-Bus callers and read back.
struct NotificationEncodingTests {
    @Test func anOffsetWithSecondsIsWrittenExactlyAndReadBack() throws {
        // New York kept local mean time, 4:56:02 behind UTC, until 18 November 1883.
        let newYork = try #require(Zone(identifier: "America/New_York"))
        let instant = Date(timeIntervalSince1970: -3_786_793_200 + 17_762)
        #expect(NotificationEncoding.isoText(instant, zone: newYork) == "1850-01-01T09:00:00-04:56:02")
        let when = NotificationEncoding.whenText(.absolute(instant), zone: newYork)
        let read = try WhenParser(now: Date(), systemZone: newYork).trigger(when)
        #expect(read == .absolute(instant), "\(when)")
        let zoned = try WhenParser(now: Date(), systemZone: .utc).trigger("1850-01-01T09:00:00-04:56:02[America/New_York]")
        #expect(zoned == .zoned(LocalDateTime(year: 1850, month: 1, day: 1, hour: 9), zone: "America/New_York"))
    }
}
