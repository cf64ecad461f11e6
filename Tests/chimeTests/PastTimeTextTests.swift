import ChimeAPI
import DBus
import Testing
@testable import chime

/// chimed's refusal of a time in the past, said with the option the user typed.
struct PastTimeTextTests {
    @Test func theRefusalNamesTheOptionTypedAndWhatToDoInstead() {
        let refusal = DBusError.invalidArgs("when: " + PastWhen.reason(when: "2020-01-01 10:00", ago: "6 years"))
        let said = PastTimeText.reworded(refusal, option: "--at")
        #expect(said.name == DBusError.invalidArgsName)
        #expect(said.message == "--at 2020-01-01 10:00 is 6 years ago; to show it now use chime notify.")
    }

    @Test func aTimeThatSaysIsIsStillFoundWhole() throws {
        let parts = try #require(PastWhen.parse("when: " + PastWhen.reason(when: "this is it", ago: "2 h 5 min")))
        #expect(parts.when == "this is it" && parts.ago == "2 h 5 min")
    }

    @Test(arguments: [
        DBusError.invalidArgs("when: cannot read 'never'."),
        DBusError.invalidArgs("at: 'today' needs a time of day, as in 'today 18:00' (today alone would be now)."),
        DBusError(name: "io.github.chime.Error.NotFound", message: "when: " + PastWhen.reason(when: "x", ago: "1 day")),
    ])
    func otherErrorsAreLeftAsTheyAre(error: DBusError) {
        #expect(PastTimeText.reworded(error, option: "--at") == error)
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
