import ChimeAPI
import DBus
import Testing
@testable import chime

/// What `chime add` prints from chimed's description of what it stored.
struct AddEchoTests {
    static let distances: [(ahead: Int64, text: String)] = [
        (0, "due now"), (1, "in 1 second"), (59, "in 59 seconds"), (60, "in 1 minute"), (2_699, "in 45 minutes"),
        (3_599, "in 1 hour"), (3_600, "in 1 hour"), (10_810, "in 3 hours"), (7_500, "in 2 h 5 min"), (86_390, "in 24 hours"),
    ]

    @Test(arguments: distances)
    func howFarAwayIsSaidInTheLargestUnitThatFits(ahead: Int64, expected: String) {
        #expect(HumanText.distance(to: 1_798_131_600 + ahead, from: 1_798_131_600) == expected)
    }

    @Test func theIdComesFirstAndJSONAddsTheInstant() {
        let described: [(key: String, value: Value)] = [("id", .string("k3x9")), ("nextFire", .variant(.int64(1_798_131_600)))]
        let text = Add.echo(id: "k3x9", described: described, json: false, now: 1_798_131_600 - 45 * 60)
        #expect(text.hasPrefix("k3x9  ") && text.hasSuffix(" (in 45 minutes)"), "\(text)")
        let json = Add.echo(id: "k3x9", described: described, json: true, now: 0)
        #expect(json.contains("\"id\": \"k3x9\"") && json.contains("\"nextFire\": 1798131600") && json.contains("\"nextFireLocal\": \""),
                "\(json)")
    }

    /// `--at now` may have fired before chime asks what was stored: it says when it fired.
    @Test func aOneShotThatFiredAtOnceIsEchoedWithItsTime() {
        let described: [(key: String, value: Value)] = [("id", .string("k3x9")), ("lastFired", .variant(.int64(1_798_131_600)))]
        let text = Add.echo(id: "k3x9", described: described, json: false, now: 1_798_131_600)
        #expect(text.hasPrefix("k3x9  ") && text.hasSuffix(" (due now)"), "\(text)")
    }

    @Test func withoutAFireTimeOnlyTheIdIsPrinted() {
        #expect(Add.echo(id: "k3x9", described: [], json: false, now: 0) == "k3x9")
        #expect(Add.echo(id: "k3x9", described: [], json: true, now: 0) == "{\n  \"id\": \"k3x9\"\n}")
    }
}
