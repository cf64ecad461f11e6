import Foundation
import JSON
import Testing

struct JSONTextTests {
    static let sample = JSONText.object([
        ("a", .string("x\"\n\u{1}\\")), ("b", .null), ("c", .array([])), ("d", .integer(Int64(-3))),
        ("e", .double(1.5)), ("f", .double(.infinity)), ("g", .array([.bool(true), .object([])])),
    ])

    @Test func prettyIsEscapedIndentedAndInOrder() {
        #expect(Self.sample.rendered() == """
            {
              "a": "x\\"\\n\\u0001\\\\",
              "b": null,
              "c": [],
              "d": -3,
              "e": 1.5,
              "f": null,
              "g": [
                true,
                {}
              ]
            }
            """)
    }

    @Test func compactIsOneLineWithTheSameContent() {
        #expect(Self.sample.compact == #"{"a":"x\"\n\u0001\\","b":null,"c":[],"d":-3,"e":1.5,"f":null,"g":[true,{}]}"#)
    }

    @Test(arguments: ["plain", "ünïcödé ✓", "tab\there", "\u{1f}", "quote\"slash\\"])
    func quotedTextIsJSONThatReadsBack(text: String) throws {
        let quoted = JSONText.quote(text)
        let parsed = try JSONSerialization.jsonObject(with: Data(("[" + quoted + "]").utf8)) as? [String]
        #expect(parsed == [text])
    }
}

extension JSONTextTests {
    @Test func indentingCompactTextGivesThePrettyForm() {
        #expect(JSONText.indented(Self.sample.compact) == Self.sample.rendered())
        #expect(JSONText.indented("[]") == "[]")
        #expect(JSONText.indented(" { } ") == "{}")
        // Brackets, commas and colons inside strings are text.
        let tricky = JSONText.array([.object([("k,{:", .string("[a]: \"b\", {c}\\"))]), .array([.integer(1), .integer(2)])])
        #expect(JSONText.indented(tricky.compact) == tricky.rendered())
    }
}
