/// A JSON value, written without Foundation: chime's `--json` output and chimed's
/// `ListJSON`, `GetJSON` and `HistoryJSON` replies, and what a command handler reads on
/// its standard input.
///
/// Objects keep their keys in the order given, so the output is stable for scripts and
/// diffs; an absent value is written as `null`, never left out.
public indirect enum JSONText: Sendable {
    case object([(String, JSONText)])
    case array([JSONText])
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case null

    public static func string(_ text: String?) -> JSONText { text.map(JSONText.string) ?? .null }
    public static func integer<T: BinaryInteger>(_ number: T?) -> JSONText { number.map { .integer(Int64($0)) } ?? .null }
    public static func bool(_ value: Bool?) -> JSONText { value.map(JSONText.bool) ?? .null }
    public static func strings(_ texts: [String]?) -> JSONText { texts.map { .array($0.map(JSONText.string)) } ?? .null }

    /// On one line, without spaces: for replies and pipes, where size matters more than looks.
    public var compact: String {
        switch self {
        case .object(let entries):
            return "{" + entries.map { Self.quote($0.0) + ":" + $0.1.compact }.joined(separator: ",") + "}"
        case .array(let elements):
            return "[" + elements.map(\.compact).joined(separator: ",") + "]"
        default:
            return rendered()
        }
    }

    /// Indented two spaces per level, as `jq` prints.
    public func rendered(indent: String = "") -> String {
        let inner = indent + "  "
        switch self {
        case .object(let entries):
            guard !entries.isEmpty else { return "{}" }
            return "{\n" + entries.map { inner + Self.quote($0.0) + ": " + $0.1.rendered(indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        case .array(let elements):
            guard !elements.isEmpty else { return "[]" }
            return "[\n" + elements.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .string(let text): return Self.quote(text)
        case .integer(let number): return String(number)
        // JSON has no infinities or NaN.
        case .double(let number): return number.isFinite ? String(number) : "null"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }

    /// `text` as a JSON string literal, quotes included.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
