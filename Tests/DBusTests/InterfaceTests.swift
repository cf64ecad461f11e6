import Testing
@testable import DBus

struct InterfaceTests {
    /// Argument and property names are free text; the document stays well-formed XML
    /// whatever they hold.
    @Test func freeTextNamesAreEscapedInTheIntrospectionDocument() throws {
        let interface = Interface(
            try InterfaceName("org.example.Test"),
            methods: [Method(try MemberName("Echo"), inputs: [Argument("a\"b", "s")], outputs: [Argument("x<y&z", "s")]) { _ in [.string("")] }],
            signals: [SignalDescription(try MemberName("Said"), arguments: [Argument("it's \"so\"", "as")])],
            properties: [Property("Mode<1>", "s") { .string("") }]
        )
        let xml = interface.introspectionXML
        #expect(xml.contains("<arg name=\"a&quot;b\" type=\"s\" direction=\"in\"/>"), "\(xml)")
        #expect(xml.contains("<arg name=\"x&lt;y&amp;z\" type=\"s\" direction=\"out\"/>"), "\(xml)")
        #expect(xml.contains("<arg name=\"it's &quot;so&quot;\" type=\"as\"/>"), "\(xml)")
        #expect(xml.contains("<property name=\"Mode&lt;1>\" type=\"s\" access=\"read\"/>"), "\(xml)")
    }
}
