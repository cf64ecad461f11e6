import Testing
@testable import chime

/// An option is named in an error as it was typed, with the value that followed it.
struct TypedWordsTests {
    @Test(arguments: [
        (["next", "9:00", "-n", "0"], "-n", "0"),
        (["next", "9:00", "--number", "0"], "--number", "0"),
        (["next", "9:00", "--number=0"], "--number", "0"),
        (["next", "9:00", "-n0"], "-n", "0"),
        (["next", "9:00", "-n", "3", "--number", "0"], "--number", "0"),
    ])
    func theLastSpellingTypedIsTheOneNamed(arguments: [String], spelling: String, value: String) throws {
        let use = try #require(TypedWords(arguments).lastUse(of: ["-n", "--number"]))
        #expect(use.spelling == spelling)
        #expect(use.value == value)
    }

    @Test func anOptionNotTypedIsNamedByItsLongName() {
        let typed = TypedWords(["next", "9:00"])
        #expect(typed.lastUse(of: ["-n", "--number"]) == nil)
        #expect(typed.spelling(of: ["-n", "--number"]) == "--number")
    }

    @Test func wordsAfterTheDoubleDashAreArguments() {
        #expect(TypedWords(["add", "--in", "1h", "--", "--at"]).lastUse(of: ["--at"]) == nil)
    }

    @Test func aRepeatableOptionGivesEachValue() {
        #expect(TypedWords(["add", "T", "-A", "done=Done", "--action=later=Later"]).values(of: ["-A", "--action"]) == ["done=Done", "later=Later"])
    }
}
