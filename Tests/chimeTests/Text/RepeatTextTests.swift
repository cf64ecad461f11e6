import Localization
import Testing
@testable import chime

/// Repeats in words, from the RRULE chimed sends, in the C locale's English.
struct RepeatTextTests {
    @Test(arguments: [
        ("day", "FREQ=DAILY", "every day"),
        ("day", "FREQ=DAILY;INTERVAL=3", "every 3 days"),
        ("week", "FREQ=WEEKLY;INTERVAL=2", "every 2 weeks"),
        ("week", "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;UNTIL=20300630T235959", "every weekday until 30 Jun 2030"),
        ("week", "FREQ=WEEKLY;BYDAY=SA,SU", "every weekend"),
        ("week", "FREQ=WEEKLY;BYDAY=FR,MO,WE", "every Mon, Wed, Fri"),
        ("week", "FREQ=WEEKLY;INTERVAL=2;BYDAY=TU", "every 2 weeks on Tue"),
        ("week", "FREQ=WEEKLY;INTERVAL=3;BYDAY=MO,TU,WE,TH,FR", "every 3 weeks on weekdays"),
        ("month", "FREQ=MONTHLY;BYDAY=2TU;COUNT=10", "2nd Tuesday, 10 times"),
        ("month", "FREQ=MONTHLY;BYDAY=-1FR", "last Friday"),
        ("month", "FREQ=MONTHLY;BYDAY=1MO,3MO", "1st Monday, 3rd Monday"),
        ("month", "FREQ=MONTHLY;INTERVAL=2;BYDAY=4TH", "4th Thursday every 2 months"),
        ("month", "FREQ=MONTHLY;BYMONTHDAY=-1", "last day of the month"),
        ("year", "FREQ=YEARLY;COUNT=1", "every year, once"),
        ("hour", "FREQ=HOURLY;INTERVAL=2;UNTIL=20301224T180000", "every 2 hours until 24 Dec 2030 18:00"),
        ("minute", "FREQ=MINUTELY;INTERVAL=30;WKST=MO;X-NEW=1", "every 30 minutes"),
    ])
    func aRuleIsSaidInWordsNeverAsItself(unit: String, rrule: String, expected: String) {
        let words = Localization.untranslated { HumanText.repetition(unit, every: nil, rrule: rrule, formats: .c) }
        #expect(words == expected)
    }

    /// A rule with BY parts the words do not say reads as the rule itself, never as a
    /// shorter repeat it is not.
    @Test(arguments: [
        ("month", "FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1"), ("month", "FREQ=MONTHLY;BYMONTHDAY=15"),
        ("day", "FREQ=DAILY;BYDAY=MO"), ("year", "FREQ=YEARLY;BYDAY=20MO"), ("month", "FREQ=MONTHLY;BYDAY=5FR"),
        ("day", "FREQ=DAILY;BYHOUR=9,17;COUNT=4"),
    ])
    func aRuleWithOtherPartsIsShownAsItself(unit: String, rrule: String) {
        #expect(Localization.untranslated { HumanText.repetition(unit, every: nil, rrule: "RRULE:" + rrule, formats: .c) } == rrule)
    }

    @Test func aOneShotHasNoRepeatAndARuleOfAnOlderChimedStillReads() {
        #expect(HumanText.repetition(nil, every: nil, rrule: nil) == "-")
        #expect(Localization.untranslated { HumanText.repetition("week", every: 2, rrule: nil, formats: .c) } == "every 2 weeks")
    }
}
