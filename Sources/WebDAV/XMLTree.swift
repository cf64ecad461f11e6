import CXML

/// An XML element as a value: its namespace and local name, attributes, own text and child
/// elements, copied out of libxml2's document, which is freed before `parse` returns.
///
/// Names are matched by namespace URI and local name, never by prefix: `D:href`, `d:href`
/// and an unprefixed `href` under `xmlns="DAV:"` are the same element, and servers differ in
/// which they write (Radicale, SabreDAV, iCloud, Google and xandikos each choose their own).
public struct XMLTree: Sendable, Equatable {
    /// The namespace URI, nil for an element in no namespace.
    public var namespace: String?
    /// The local name, without a prefix.
    public var name: String
    /// The attributes, in document order.
    public var attributes: [Attribute]
    /// The element's own character data (text and CDATA), joined, as written; not its children's.
    public var text: String
    /// The child elements, in document order.
    public var children: [XMLTree]

    /// One attribute of an element.
    public struct Attribute: Sendable, Equatable {
        /// The namespace URI, nil for an unprefixed attribute (which has none in XML).
        public var namespace: String?
        /// The local name.
        public var name: String
        /// The value, with character references resolved.
        public var value: String

        /// An attribute named `name` in `namespace`.
        public init(namespace: String? = nil, name: String, value: String) {
            self.namespace = namespace
            self.name = name
            self.value = value
        }
    }

    /// An element with these parts.
    public init(namespace: String?, name: String, attributes: [Attribute] = [], text: String = "", children: [XMLTree] = []) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.text = text
        self.children = children
    }

    /// The largest answer read unless a caller says otherwise: 64 MiB. A multiget of a few
    /// thousand events is a few MiB; this leaves room for calendars with large attachments
    /// inline and still bounds what a broken or hostile server can make chimed hold.
    public static let defaultMaxBytes = 64 << 20

    /// How deep elements may nest: WebDAV's deepest answers (a privilege in a propstat of a
    /// multistatus) are about 8 levels; 100 leaves room for extensions and bounds the
    /// recursion that builds and walks the tree.
    public static let maxDepth = 100

    /// The root element of `bytes`, refused when larger than `maxBytes` (before any parse),
    /// not well-formed XML or XML namespaces, nested deeper than ``maxDepth``, or declaring
    /// entities.
    public static func parse(_ bytes: [UInt8], maxBytes: Int = defaultMaxBytes) throws(DAVFailure) -> XMLTree {
        guard bytes.count <= maxBytes else {
            throw DAVFailure("the server's answer is larger than \(describe(bytes: maxBytes)), more than Chime reads")
        }
        var failure = chime_xml_failure()
        let document = bytes.withUnsafeBytes { chime_xml_parse($0.baseAddress, $0.count, Int32(maxDepth), &failure) }
        guard let document else { throw refusal(failure, maxBytes: maxBytes) }
        defer { chime_xml_free(document) }
        // chime_xml_parse gives no document without a root element.
        guard let root = chime_xml_root(document) else { throw DAVFailure("the server's answer is not XML: it has no element") }
        return XMLTree(copying: root)
    }

    /// The tree under `element`, copied; the depth limit of the parse bounds the recursion.
    private init(copying element: OpaquePointer) {
        namespace = chime_xml_namespace(element).map { String(cString: $0) }
        name = String(cString: chime_xml_local_name(element))
        text = Self.take(chime_xml_text(element))
        attributes = []
        var attribute = chime_xml_first_attribute(element)
        while let current = attribute {
            attributes.append(Attribute(namespace: chime_xml_attribute_namespace(current).map { String(cString: $0) },
                                        name: String(cString: chime_xml_attribute_name(current)),
                                        value: Self.take(chime_xml_attribute_value(current))))
            attribute = chime_xml_next_attribute(current)
        }
        children = []
        var child = chime_xml_first_child(element)
        while let current = child {
            children.append(XMLTree(copying: current))
            child = chime_xml_next_sibling(current)
        }
    }

    /// The text of a buffer chime_xml_text or chime_xml_attribute_value returned, which it frees.
    private static func take(_ buffer: UnsafeMutablePointer<CChar>?) -> String {
        guard let buffer else { return "" }
        defer { chime_xml_free_text(buffer) }
        return String(cString: buffer)
    }

    private static func refusal(_ failure: chime_xml_failure, maxBytes: Int) -> DAVFailure {
        let message = withUnsafeBytes(of: failure.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch failure.refusal {
        case Int32(CHIME_XML_ENTITIES.rawValue):
            return DAVFailure("the server's answer declares XML entities, which Chime does not read")
        case Int32(CHIME_XML_TOO_DEEP.rawValue):
            return DAVFailure("the server's answer nests XML elements deeper than \(maxDepth) levels, which Chime does not read")
        case Int32(CHIME_XML_UNAVAILABLE.rawValue):
            return DAVFailure("the XML library libxml2 could not be loaded (\(message))")
        case Int32(CHIME_XML_TOO_LARGE.rawValue):
            return DAVFailure("the server's answer is larger than \(describe(bytes: maxBytes)), more than Chime reads")
        default:
            let line = failure.line > 0 ? " (line \(failure.line))" : ""
            return DAVFailure("the server's answer is not XML: \(message.isEmpty ? "not well-formed" : message)\(line)")
        }
    }

    /// `bytes` as people say it: "64 MiB", "512 KiB", "1000 bytes".
    static func describe(bytes: Int) -> String {
        if bytes >= 1 << 20 && bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10 && bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }

    // MARK: - Finding elements

    /// Whether this element is `name` in `namespace`.
    public func `is`(_ namespace: String, _ name: String) -> Bool {
        self.name == name && self.namespace == namespace
    }

    /// The first child that is `name` in `namespace`.
    public func child(_ namespace: String, _ name: String) -> XMLTree? {
        children.first { $0.is(namespace, name) }
    }

    /// The children that are `name` in `namespace`, in document order.
    public func children(_ namespace: String, _ name: String) -> [XMLTree] {
        children.filter { $0.is(namespace, name) }
    }

    /// The value of the unprefixed attribute `name`.
    public func attribute(_ name: String) -> String? {
        attributes.first { $0.namespace == nil && $0.name == name }?.value
    }

    /// ``text`` without the white space around it, which pretty-printing servers add.
    public var trimmedText: String {
        trimmingSpace(text)
    }
}

/// `text` without the XML white space (space, tab, CR, LF) around it.
func trimmingSpace(_ text: String) -> String {
    let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    let utf8 = text.utf8
    guard let first = utf8.firstIndex(where: { !isSpace($0) }), let last = utf8.lastIndex(where: { !isSpace($0) }) else { return "" }
    return String(decoding: utf8[first...last], as: UTF8.self)
}

/// `text`, or nil when it is empty.
func nonEmpty(_ text: String) -> String? {
    text.isEmpty ? nil : text
}
