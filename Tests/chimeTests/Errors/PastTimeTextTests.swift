import ChimeAPI
import DBus
import Testing
@testable import chime

/// chimed's refusal of a time in the past, said with the option the user typed.
struct PastTimeTextTests {
    @Test func theRefusalNamesTheOptionTypedAndWhatToDoInstead() {
        let refusal = "when: " + PastWhen.reason(when: "2020-01-01 10:00", ago: "6 years")
        #expect(PastTimeText.sentence(refusal, option: "--at") == "--at 2020-01-01 10:00 is 6 years ago; to show it now use chime notify.")
        // Found through chime's one way of saying chimed's refusals, with the option as typed.
        #expect(RefusalText.sentence(refusal, typed: TypedWords(["edit", "3kq9xw2m", "--in", "-5m"]))
                == "--in 2020-01-01 10:00 is 6 years ago; to show it now use chime notify.")
    }

    @Test func aTimeThatSaysIsIsStillFoundWhole() throws {
        let parts = try #require(PastWhen.parse("when: " + PastWhen.reason(when: "this is it", ago: "2 h 5 min")))
        #expect(parts.when == "this is it" && parts.ago == "2 h 5 min")
    }

    @Test(arguments: [
        "when: cannot read 'never'.",
        "when: 'today' needs a time of day, as in 'today 18:00' (today alone would be now).",
    ])
    func otherErrorsAreLeftAsTheyAre(message: String) {
        #expect(PastTimeText.sentence(message, option: "--at") == nil)
    }

    @Test(arguments: [
        ("40 s", "40 s"), ("5 min", "5 min"), ("2 h", "2 h"), ("2 h 5 min", "2 h 5 min"), ("1 day", "1 day"), ("3 days", "3 days"),
        ("3 weeks", "3 weeks"), ("4 months", "4 months"), ("1 year", "1 year"), ("6 years", "6 years"), ("a while", "a while"),
    ])
    func spansAreSaidAsTheLateMarkSaysThem(english: String, spoken: String) {
        // The session's language is C here: the words come back as chimed wrote them.
        #expect(PastTimeText.spoken(english) == spoken)
    }
}
