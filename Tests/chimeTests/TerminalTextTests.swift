import Testing
@testable import chime

/// Human output escapes what a terminal would act on.
struct TerminalTextTests {
    @Test(arguments: [
        ("Tea", "Tea"),
        ("Grüße, 世界 🎉", "Grüße, 世界 🎉"),
        ("\u{1B}[31mRed\u{1B}[0m", "\\x1b[31mRed\\x1b[0m"),
        ("\u{1B}]0;owned\u{07}Title", "\\x1b]0;owned\\x07Title"),
        ("tab\there", "tab\\there"),
        ("one\ntwo\r\nthree", "one\\ntwo\\r\\nthree"),
        ("del\u{7F} csi\u{9B}2J nel\u{85}", "del\\x7f csi\\x9b2J nel\\x85"),
        ("nul\u{0}", "nul\\x00"),
        // Backslashes stay as they are: this form is for reading, not parsing.
        ("C:\\path", "C:\\path"),
    ])
    func controlCharactersAreEscaped(text: String, expected: String) {
        #expect(HumanText.escaped(text) == expected)
    }

    @Test func newlinesCanStay() {
        #expect(HumanText.escaped("one\ntwo\u{1B}[2J", keepingNewlines: true) == "one\ntwo\\x1b[2J")
    }

    @Test func tableCellsAreEscapedAndStillAligned() {
        let table = HumanText.table(header: ["ID", "TITLE"], rows: [["a\u{1B}", "x\ny"], ["bb", "z"]])
        #expect(table == "ID     TITLE\na\\x1b  x\\ny\nbb     z")
    }
}
