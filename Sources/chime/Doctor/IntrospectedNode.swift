/// The interfaces and methods of one object, read from its introspection document (the
/// D-Bus specification's "Introspection Data Format").
///
/// Read here rather than with GIO's parser: chime loads no library for it, and the part
/// read is small. The document must be well-formed (every element closed, quotes and
/// comments ended) and have `node` as its root; elements other than interface, method and
/// arg are stepped over, as are child nodes, which describe other objects.
struct IntrospectedNode: Equatable {
    /// Interface name → method name → the method's input signature.
    private(set) var interfaces: [String: [String: String]] = [:]

    /// Nil when the text is not a well-formed introspection document.
    init?(xml: String) {
        var reader = Reader(Array(xml.utf8))
        // The elements open around the one being read, outermost first, with their names:
        // the interface and method an arg belongs to are read off it.
        var open: [(element: String, name: String?)] = []
        var sawRoot = false
        while let item = reader.next() {
            switch item {
            case .malformed:
                return nil
            case .start(let element, let attributes, let closed):
                if open.isEmpty {
                    guard !sawRoot, element == "node" else { return nil }
                    sawRoot = true
                }
                // Only the root node's own interfaces, their methods and the methods' args.
                let path = open.dropFirst().map(\.element) + [element]
                let interface = open.count > 1 ? open[1].name : attributes["name"]
                let method = open.count > 2 ? open[2].name : attributes["name"]
                switch path {
                case ["interface"]:
                    if let interface, interfaces[interface] == nil { interfaces[interface] = [:] }
                case ["interface", "method"]:
                    if let interface, let method, interfaces[interface]?[method] == nil { interfaces[interface]?[method] = "" }
                // The specification: a method's arg without a direction is an input.
                case ["interface", "method", "arg"] where attributes["direction"] ?? "in" == "in":
                    if let interface, let method, let type = attributes["type"] { interfaces[interface]?[method]? += type }
                default:
                    break
                }
                if !closed { open.append((element, attributes["name"])) }
            case .end(let element):
                guard open.last?.element == element else { return nil }
                open.removeLast()
            }
        }
        guard sawRoot, open.isEmpty else { return nil }
    }
}

// MARK: - Reading the document

/// A pull reader of the XML that introspection documents are written in: start and end
/// tags with their attributes. Text, comments, processing instructions and the DOCTYPE
/// are stepped over.
private struct Reader {
    enum Item {
        /// `closed` for an empty-element tag (`<arg …/>`).
        case start(String, [String: String], closed: Bool)
        case end(String)
        case malformed
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next tag; nil at the end of the text.
    mutating func next() -> Item? {
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if starts(with: "<!--") {
                guard skip(past: "-->") else { return .malformed }
            } else if starts(with: "<?") {
                guard skip(past: "?>") else { return .malformed }
            } else if starts(with: "<!") {
                guard skipDeclaration() else { return .malformed }
            } else if starts(with: "</") {
                index += 2
                guard let name = name() else { return .malformed }
                skipSpace()
                guard at(">") else { return .malformed }
                index += 1
                return .end(name)
            } else {
                index += 1
                return startTag()
            }
        }
        return nil
    }

    private mutating func startTag() -> Item {
        guard let element = name() else { return .malformed }
        var attributes: [String: String] = [:]
        while true {
            let spaced = skipSpace()
            if at("/") {
                index += 1
                guard at(">") else { return .malformed }
                index += 1
                return .start(element, attributes, closed: true)
            }
            if at(">") {
                index += 1
                return .start(element, attributes, closed: false)
            }
            guard spaced, let key = name() else { return .malformed }
            skipSpace()
            guard at("=") else { return .malformed }
            index += 1
            skipSpace()
            guard let value = quoted(), attributes[key] == nil else { return .malformed }
            attributes[key] = value
        }
    }

    /// An element or attribute name: up to a space, `=`, `/` or `>`.
    private mutating func name() -> String? {
        let start = index
        while index < bytes.count, !Self.isSpace(bytes[index]), !"=/>\"'<".utf8.contains(bytes[index]) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// A quoted attribute value, its references replaced.
    private mutating func quoted() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "'") || bytes[index] == UInt8(ascii: "\"") else { return nil }
        let quote = bytes[index]
        index += 1
        let start = index
        while index < bytes.count, bytes[index] != quote {
            if bytes[index] == UInt8(ascii: "<") { return nil }
            index += 1
        }
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return Self.replacingReferences(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    private static let predefinedEntities = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]

    /// The five predefined entities and character references; an unknown one is kept.
    private static func replacingReferences(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            result += rest[..<ampersand]
            rest = rest[ampersand...]
            guard let semicolon = rest.firstIndex(of: ";") else { break }
            let entity = rest[rest.index(after: ampersand)..<semicolon]
            if let replacement = predefinedEntities[String(entity)] {
                result += replacement
            } else if entity.hasPrefix("#"), let scalar = characterReference(entity.dropFirst()) {
                result.unicodeScalars.append(scalar)
            } else {
                result += rest[...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    private static func characterReference(_ digits: Substring) -> Unicode.Scalar? {
        let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init)
    }

    /// `<!DOCTYPE …>` and other declarations, whose quoted parts may hold `>`.
    private mutating func skipDeclaration() -> Bool {
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return true
            }
        }
        return false
    }

    private mutating func skip(past end: String) -> Bool {
        let pattern = Array(end.utf8)
        while index + pattern.count <= bytes.count {
            if bytes[index..<index + pattern.count].elementsEqual(pattern) {
                index += pattern.count
                return true
            }
            index += 1
        }
        return false
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    private func starts(with prefix: String) -> Bool {
        let pattern = Array(prefix.utf8)
        return index + pattern.count <= bytes.count && bytes[index..<index + pattern.count].elementsEqual(pattern)
    }

    private func at(_ character: Unicode.Scalar) -> Bool {
        index < bytes.count && bytes[index] == UInt8(character.value)
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
