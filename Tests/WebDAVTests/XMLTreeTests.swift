import Foundation
import Testing
@testable import WebDAV

// Ten minutes, though each test takes milliseconds: a time limit also counts the wait for one of
// the runner's threads, which the end-to-end suites hold for seconds at a time.
@Suite(.timeLimit(.minutes(10)))
struct XMLTreeTests {
    func parse(_ text: String, maxBytes: Int = XMLTree.defaultMaxBytes) throws(DAVFailure) -> XMLTree {
        try XMLTree.parse(Array(text.utf8), maxBytes: maxBytes)
    }

    /// The failure `text` is refused with; a test failure when it is read.
    func refusal(_ text: String, maxBytes: Int = XMLTree.defaultMaxBytes) -> DAVFailure? {
        refusal(Array(text.utf8), maxBytes: maxBytes)
    }

    func refusal(_ bytes: [UInt8], maxBytes: Int = XMLTree.defaultMaxBytes) -> DAVFailure? {
        do {
            let tree = try XMLTree.parse(bytes, maxBytes: maxBytes)
            Issue.record("read, not refused: \(tree)")
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Names

    @Test(arguments: [
        // Prefixes as servers write them: SabreDAV (Nextcloud) d: and cal:, RFC examples D: and
        // C:, Radicale and iCloud a default namespace, mixed.
        #"<d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav"><d:response><d:href>/a</d:href><cal:calendar-data>x</cal:calendar-data></d:response></d:multistatus>"#,
        #"<D:multistatus xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:response><D:href>/a</D:href><C:calendar-data>x</C:calendar-data></D:response></D:multistatus>"#,
        #"<multistatus xmlns="DAV:"><response><href>/a</href><calendar-data xmlns="urn:ietf:params:xml:ns:caldav">x</calendar-data></response></multistatus>"#,
        #"<x:multistatus xmlns:x="DAV:"><response xmlns="DAV:"><href>/a</href><C:calendar-data xmlns:C="urn:ietf:params:xml:ns:caldav">x</C:calendar-data></response></x:multistatus>"#,
    ])
    func elementsAreNamedByNamespaceAndLocalNameWhateverThePrefix(_ text: String) throws {
        let tree = try parse(text)
        let expected = XMLTree(namespace: "DAV:", name: "multistatus", children: [
            XMLTree(namespace: "DAV:", name: "response", children: [
                XMLTree(namespace: "DAV:", name: "href", text: "/a"),
                XMLTree(namespace: "urn:ietf:params:xml:ns:caldav", name: "calendar-data", text: "x"),
            ]),
        ])
        #expect(tree == expected)
        #expect(tree.child("DAV:", "response")?.child(DAVNamespace.calDAV, "calendar-data")?.text == "x")
    }

    @Test func aPrefixBoundToAnotherNamespaceIsNotDAV() throws {
        let tree = try parse(#"<D:multistatus xmlns:D="urn:not-dav"><D:response/></D:multistatus>"#)
        #expect(!tree.is("DAV:", "multistatus"))
        #expect(tree.namespace == "urn:not-dav")
        #expect(tree.child("DAV:", "response") == nil)
    }

    @Test func anElementInNoNamespaceHasNone() throws {
        let tree = try parse("<a><b/></a>")
        #expect(tree.namespace == nil && tree.name == "a")
        #expect(tree.children.map(\.name) == ["b"])
    }

    @Test func anUndeclaredPrefixIsRefusedNotGuessed() throws {
        let failure = try #require(refusal("<d:multistatus>\n<d:response/></d:multistatus>"))
        #expect(failure.description.hasPrefix("the server's answer is not XML: "), "\(failure)")
        #expect(failure.description.contains("(line 1)"), "\(failure)")
    }

    // MARK: - Text and attributes

    @Test func textKeepsItsSpaceJoinsCDATAAndResolvesReferences() throws {
        let tree = try parse("<a>  one &amp; &#x41;&#66; <![CDATA[<two> & ]]>three\n<b>inner</b> four </a>")
        #expect(tree.text == "  one & AB <two> & three\n four ")
        #expect(tree.trimmedText == "one & AB <two> & three\n four")
        #expect(tree.children.map(\.text) == ["inner"])
    }

    @Test func attributesAreReadWithTheirNamespaces() throws {
        let tree = try parse(#"<c xmlns:x="urn:x" name="VEVENT" x:kind="a&amp;b" empty=""/>"#)
        #expect(tree.attribute("name") == "VEVENT")
        #expect(tree.attribute("kind") == nil)
        #expect(tree.attributes == [
            .init(name: "name", value: "VEVENT"), .init(namespace: "urn:x", name: "kind", value: "a&b"), .init(name: "empty", value: ""),
        ])
    }

    @Test func aDeclaredEncodingOtherThanUTF8IsReadAsUTF8() throws {
        let bytes = Array(#"<?xml version="1.0" encoding="ISO-8859-1"?><a>caf"#.utf8) + [0xE9] + Array("</a>".utf8)
        #expect(try XMLTree.parse(bytes).text == "café")
    }

    @Test func aDocumentTypeWithoutEntitiesIsRead() throws {
        #expect(try parse("<!DOCTYPE multistatus><multistatus xmlns=\"DAV:\"/>").name == "multistatus")
    }

    // MARK: - Refusals

    @Test func malformedXMLIsRefusedWithAClauseNamingTheLine() throws {
        let failure = try #require(refusal("<?xml version=\"1.0\"?>\n<multistatus xmlns=\"DAV:\">\n<response></propstat>\n</multistatus>"))
        #expect(failure.description.hasPrefix("the server's answer is not XML: "), "\(failure)")
        #expect(failure.description.hasSuffix("(line 3)"), "\(failure)")
        #expect(!failure.description.contains("\n"))
    }

    @Test(arguments: ["", "   ", "<html><body>Bad gateway", "HTTP/1.1 502 Bad Gateway", "<a></a><b></b>", "\u{FEFF}"])
    func whatIsNotOneXMLDocumentIsRefused(_ text: String) throws {
        let failure = try #require(refusal(text))
        #expect(failure.description.hasPrefix("the server's answer is not XML"), "\(failure)")
    }

    @Test func libxml2SaysNothingOnStandardError() throws {
        // Refusals and a warning (a relative namespace URI), each of which libxml2 prints to
        // stderr unless told otherwise.
        let printed = try Self.standardError {
            _ = refusal("<a>\n<b></a>")
            _ = refusal(#"<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>"#)
            _ = try? parse(#"<a xmlns="relative/uri"/>"#)
        }
        #expect(!printed.contains("parser error") && !printed.contains("namespace warning"), "\(printed)")
    }

    /// What `body` writes to file descriptor 2, which is a pipe meanwhile.
    static func standardError(_ body: () throws -> Void) throws -> String {
        var pipe: [Int32] = [0, 0]
        try #require(Glibc.pipe(&pipe) == 0)
        fflush(nil)
        let saved = dup(2)
        dup2(pipe[1], 2)
        close(pipe[1])
        defer { close(pipe[0]) }
        do {
            try body()
        } catch {
            fflush(nil)
            dup2(saved, 2)
            close(saved)
            throw error
        }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        _ = fcntl(pipe[0], F_SETFL, O_NONBLOCK)
        var bytes = [UInt8](repeating: 0, count: 65_536)
        let count = read(pipe[0], &bytes, bytes.count)
        return String(decoding: bytes.prefix(max(count, 0)), as: UTF8.self)
    }

    @Test func anAnswerOverTheLimitIsRefusedBeforeItIsParsed() throws {
        // Not XML at all: the size is what is said, so nothing was parsed.
        let body = [UInt8](repeating: UInt8(ascii: "<"), count: 1025)
        let failure = try #require(refusal(body, maxBytes: 1024))
        #expect(failure.description == "the server's answer is larger than 1 KiB, more than Chime reads")
        #expect(try XMLTree.parse(Array("<a/>".utf8), maxBytes: 4).name == "a")
        #expect(refusal("<a/>", maxBytes: 3) != nil)
        #expect(XMLTree.describe(bytes: 64 << 20) == "64 MiB")
        #expect(XMLTree.describe(bytes: 1000) == "1000 bytes")
    }

    @Test func nestingIsReadToTheLimitAndRefusedBeyond() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
        }
        var tree = try parse(nested(XMLTree.maxDepth))
        var depth = 1
        while let child = tree.children.first {
            tree = child
            depth += 1
        }
        #expect(depth == XMLTree.maxDepth)
        for depth in [XMLTree.maxDepth + 1, 100_000] {
            let failure = try #require(refusal(nested(depth)))
            #expect(failure.description == "the server's answer nests XML elements deeper than 100 levels, which Chime does not read")
        }
        // Unclosed, as a stream that never ends would be.
        #expect(refusal(String(repeating: "<a>", count: 100_000))?.description.contains("deeper than 100") == true)
    }

    // MARK: - Entities

    static let billionLaughs = """
        <?xml version="1.0"?>
        <!DOCTYPE lolz [
         <!ENTITY lol "lol">
         <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
         <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
         <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
         <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
         <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
         <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
         <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
         <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
         <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
        ]>
        <multistatus xmlns="DAV:"><response><href>&lol9;</href></response></multistatus>
        """

    static let entityClause = "the server's answer declares XML entities, which Chime does not read"

    /// This process's resident memory, from /proc/self/status, in KiB.
    static func residentKiB() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ")[1]))
    }

    @Test func billionLaughsIsRefusedWithoutExpandingAnything() throws {
        let before = try Self.residentKiB()
        // Twenty times: what one expansion kept would add up.
        for _ in 0..<20 {
            #expect(refusal(Self.billionLaughs)?.description == Self.entityClause)
        }
        let grown = try Self.residentKiB() - before
        // Expanded, the entities are 3 GB of text; other suites run beside this one.
        #expect(grown < 50 * 1024, "resident memory grew by \(grown) KiB")
    }

    @Test(arguments: [
        // A general entity: the file's text would be the href.
        #"<!DOCTYPE m [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><m xmlns="DAV:"><href>&xxe;</href></m>"#,
        // A parameter entity, expanded inside the DTD itself.
        #"<!DOCTYPE m [<!ENTITY % xxe SYSTEM "file:///etc/passwd"> %xxe;]><m xmlns="DAV:"/>"#,
        // An unparsed entity.
        #"<!DOCTYPE m [<!NOTATION n SYSTEM "x"><!ENTITY u SYSTEM "file:///etc/passwd" NDATA n>]><m xmlns="DAV:"/>"#,
        // Over the network (which XML_PARSE_NONET would stop too).
        #"<!DOCTYPE m [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/x">]><m xmlns="DAV:"><href>&xxe;</href></m>"#,
        // An internal entity, harmless itself: any declaration is refused.
        #"<!DOCTYPE m [<!ENTITY e "text">]><m xmlns="DAV:"><href>&e;</href></m>"#,
    ])
    func entityDeclarationsAreRefused(_ text: String) throws {
        let failure = try #require(refusal(text))
        #expect(failure.description == Self.entityClause)
    }

    @Test func anExternalDocumentTypeOrXIncludeIsNeverRead() throws {
        let passwd = try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
        let firstLine = try #require(passwd.split(separator: "\n").first.map(String.init))
        for text in [
            #"<!DOCTYPE m SYSTEM "file:///etc/passwd"><m xmlns="DAV:"><href>/a</href></m>"#,
            #"<m xmlns="DAV:" xmlns:xi="http://www.w3.org/2001/XInclude"><href><xi:include href="file:///etc/passwd" parse="text"/></href></m>"#,
        ] {
            // Read or refused; either way without the file's text.
            let result = (try? parse(text)).map { "\($0)" } ?? refusal(text).map(\.description) ?? ""
            #expect(!result.contains(firstLine), "\(result)")
        }
    }

    @Test func anUndeclaredEntityIsRefused() throws {
        let failure = try #require(refusal(#"<m xmlns="DAV:"><href>&xxe;</href></m>"#))
        #expect(failure.description.hasPrefix("the server's answer is not XML: "), "\(failure)")
    }

    @Test func parsesOnManyThreadsAtOnceKeepTheirOwnErrors() async throws {
        // libxml2's error handlers are per thread: each parse must report its own line.
        await withTaskGroup(of: (Int, String?).self) { group in
            for line in 1...40 {
                group.addTask {
                    let text = String(repeating: "\n", count: line - 1) + "<a></b>"
                    do {
                        _ = try XMLTree.parse(Array(text.utf8))
                        return (line, nil)
                    } catch {
                        return (line, "\(error)")
                    }
                }
            }
            for await (line, description) in group {
                #expect(description?.hasSuffix("(line \(line))") == true, "\(line): \(description ?? "read")")
            }
        }
    }
}
