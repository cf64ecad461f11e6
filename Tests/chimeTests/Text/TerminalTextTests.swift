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

    @Test(arguments: [
        ("Tea", 10, "Tea"),
        ("Water the plants", 10, "Water the…"),
        ("Water the plants", 16, "Water the plants"),
        ("世界世界世界", 7, "世界世…"),
        ("ab", 0, ""),
    ])
    func longTextIsCutToItsColumnsWithAnEllipsis(text: String, width: Int, expected: String) {
        let cut = HumanText.truncated(text, to: width)
        #expect(cut == expected)
        #expect(HumanText.columns(of: cut) <= width)
    }

    @Test func aTableTooWideCutsTheShrinkingColumnOnly() {
        let rows = [["a1", "A title much longer than the room there is for it", "Tue 1 Dec 09:00", "every day"]]
        let table = HumanText.table(header: ["ID", "TITLE", "NEXT", "REPEAT"], rows: rows, width: 50, shrinking: 1)
        let lines = table.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 50 }, "\(table)")
        #expect(lines[1].hasSuffix("…  Tue 1 Dec 09:00  every day"), "\(table)")
        // Never narrower than ten columns, even if the line is then wider.
        let narrow = HumanText.table(header: ["ID", "TITLE", "NEXT", "REPEAT"], rows: rows, width: 20, shrinking: 1)
        #expect(narrow.split(separator: "\n")[1] == "a1  A title m…  Tue 1 Dec 09:00  every day", "\(narrow)")
        // A capped column leaves its long cell to push its own row only.
        let capped = HumanText.table(header: ["ID", "TITLE", "NEXT", "REPEAT"],
                                     rows: rows + [["b2", "Milk", "on entering 150m around 52.52,13.405", "-"]], width: 50, shrinking: 1, caps: [2: 25])
        let cappedLines = capped.split(separator: "\n")
        #expect(cappedLines[1] == "a1  A title much long…  Tue 1 Dec 09:00  every day", "\(capped)")
        // "Milk" padded to the title's 18 columns, then the gap.
        #expect(cappedLines[2] == "b2  Milk" + String(repeating: " ", count: 14 + 2) + "on entering 150m around 52.52,13.405  -", "\(capped)")
        // Without a width, nothing is cut.
        #expect(HumanText.table(header: ["ID", "TITLE"], rows: [["a1", rows[0][1]]]).hasSuffix(rows[0][1]))
    }

    @Test func wideCharactersTakeTwoColumnsInTheLayout() {
        let table = HumanText.table(header: ["ID", "TITLE"], rows: [["世界", "x"], ["ab", "y"]])
        #expect(table == "ID    TITLE\n世界  x\nab    y")
    }
}
