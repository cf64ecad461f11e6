import Testing
@testable import chime

/// Which calendars of an account `chime calendar add` follows, and by which names.
struct CalendarChoiceTests {
    static let found = [
        FoundCalendar(location: "https://dav.example.org/alice/personal", name: "Personal", components: ["VEVENT", "VTODO"]),
        FoundCalendar(location: "https://dav.example.org/alice/b3f1-work", name: "Work", components: ["VEVENT"]),
        FoundCalendar(location: "https://dav.example.org/alice/tasks", name: "", components: ["VTODO"]),
    ]

    @Test(arguments: [
        (["Personal"], [0]), (["personal"], [0]), (["b3f1-work"], [1]), (["WORK"], [1]), (["tasks"], [2]),
        (["Work", "Personal", "Work"], [0, 1]),
    ])
    func aNameIsTheDisplayNameOrTheCollections(typed: [String], expected: [Int]) throws {
        #expect(try CalendarChoice.named(typed, in: Self.found) == expected)
    }

    @Test func aNameThatMatchesNoneIsRefusedWithTheNamesFoundAndTheOneMeant() {
        #expect(throws: CalendarChoice.Unmatched(typed: "Personl", names: ["Personal", "Work", "b3f1-work", "tasks"], suggestion: "Personal")) {
            try CalendarChoice.named(["Work", "Personl"], in: Self.found)
        }
        let unmatched = CalendarChoice.Unmatched(typed: "Holidays", names: ["Personal", "Work"], suggestion: nil)
        #expect(unmatched.sentence == "--calendar 'Holidays' names none of the calendars found: Personal, Work.")
        let meant = CalendarChoice.Unmatched(typed: "Personl", names: ["Personal", "Work"], suggestion: "Personal")
        #expect(meant.sentence == "--calendar 'Personl' names none of the calendars found (Personal, Work); did you mean 'Personal'?")
    }

    @Test func anExactNameWinsOverAnotherCase() {
        let found = [FoundCalendar(location: "https://x.org/a/home", name: "home"), FoundCalendar(location: "https://x.org/a/Home", name: "Home")]
        #expect(CalendarChoice.index(of: "Home", in: found) == 1)
        #expect(CalendarChoice.index(of: "HOME", in: found) == nil)
    }

    @Test(arguments: [
        ("1", [0]), ("1,3", [0, 2]), (" 3 1 ", [0, 2]), ("1, 2,3", [0, 1, 2]), ("2-3", [1, 2]), ("all", [0, 1, 2]), ("ALL", [0, 1, 2]),
        ("3,3", [2]),
    ])
    func anAnswerPicksByNumber(answer: String, expected: [Int]) {
        #expect(CalendarChoice.answer(answer, count: 3) == expected)
    }

    @Test(arguments: ["", " ", "0", "4", "1,4", "x", "3-2", "1-", "-1", "1.5", "all 1"])
    func anAnswerThatIsNoChoiceIsAskedAgain(answer: String) {
        #expect(CalendarChoice.answer(answer, count: 3) == nil)
    }

    @Test(arguments: [
        ("Personal", "Personal"), ("Holidays/Public", "Holidays-Public"), ("  Work\tstuff\n", "Work stuff"), ("--x", "x"),
        ("a\u{7}b\u{200B}c", "abc"), ("/", ""), (String(repeating: "é", count: 70), String(repeating: "é", count: 64)),
    ])
    func aDisplayNameIsMadeANameChimedTakes(display: String, expected: String) {
        #expect(CalendarChoice.safeName(display) == expected)
    }

    @Test func namesAreUnlikeThoseFollowedAndOneAnother() {
        let chosen = [
            FoundCalendar(location: "https://x.org/a/one", name: "Personal"), FoundCalendar(location: "https://x.org/a/two", name: "Personal"),
            FoundCalendar(location: "https://x.org/a/tasks", name: ""), FoundCalendar(location: "https://x.org/a/%2F", name: "/"),
        ]
        #expect(CalendarChoice.names(for: chosen, taken: ["Personal", "tasks"]) == ["Personal 2", "Personal 3", "tasks 2", "calendar"])
        let long = String(repeating: "x", count: 64)
        let names = CalendarChoice.names(for: [FoundCalendar(location: "https://x.org/a/b", name: long)], taken: [long])
        #expect(names == [String(repeating: "x", count: 62) + " 2"])
    }
}
