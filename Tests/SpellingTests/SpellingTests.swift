import Spelling
import Testing

struct SpellingTests {
    @Test(arguments: [
        ("tomorow", "tomorrow"), ("tommorow", "tomorrow"), ("tmorrow", "tomorrow"), ("Tomorow", "tomorrow"),
        ("wendesday", "wednesday"), ("febuary", "february"), ("lsit", "list"), ("ad", "add"), ("shwo", "show"),
    ])
    func aSlipGetsTheWordItWasMeantToBe(typed: String, meant: String) {
        let known = ["today", "tomorrow", "wednesday", "thursday", "february", "list", "add", "show", "snooze"]
        #expect(Spelling.suggestion(for: typed, among: known) == meant)
    }

    @Test(arguments: ["blursday", "someday", "whenever", "xyz", "", "tomorrow"])
    func aWordThatIsNoSlipOrIsKnownGetsNone(typed: String) {
        #expect(Spelling.suggestion(for: typed, among: ["today", "tomorrow", "thursday", "sunday"]) == nil)
    }

    @Test func theClosestWinsAndATieGoesToTheFirstKnown() {
        #expect(Spelling.suggestion(for: "dayly", among: ["day", "daily"]) == "daily")
        #expect(Spelling.suggestion(for: "mon", among: ["man", "men"]) == "man")
    }

    @Test func aSwapOfNeighboursIsOneEdit() {
        #expect(Spelling.distance(Array("lsit"), Array("list")) == 1)
        #expect(Spelling.distance(Array("kitten"), Array("sitting")) == 3)
        #expect(Spelling.distance(Array(""), Array("abc")) == 3)
        #expect(Spelling.distance(Array("abc"), Array("abc")) == 0)
    }
}
