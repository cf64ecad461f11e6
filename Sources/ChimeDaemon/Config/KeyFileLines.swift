/// Where the groups and keys of a key file GLib accepted are, since GKeyFile keeps no
/// line numbers.
///
/// Follows GLib's own reading: lines end at `\n` (a `\r` before it is dropped), leading
/// ASCII white space is skipped, `#` starts a comment, a repeated group continues the
/// first one, and the last of a repeated key wins. Only accepted files are scanned, so
/// every other line is a `[group]` or a `key=value`.
struct KeyFileLines {
    private var groupLines: [String: Int] = [:]
    private var keyLines: [String: [String: Int]] = [:]

    init(_ bytes: [UInt8]) {
        var group: String?
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            switch Self.kind(line) {
            case .group(let name):
                group = name
                if groupLines[name] == nil { groupLines[name] = number }
            case .keyValue(let key):
                if let group { keyLines[group, default: [:]][key] = number }
            case nil:
                break
            }
        }
    }

    /// The line of the first `[group]` header.
    func line(of group: String) -> Int? { groupLines[group] }

    /// The line of the `key=` in `group` that GLib keeps: the last one.
    func line(of key: String, in group: String) -> Int? { keyLines[group]?[key] }

    private enum Kind {
        case group(String)
        case keyValue(String)
    }

    /// What a line of an accepted file is; nil for a blank line or a comment.
    private static func kind(_ line: ArraySlice<UInt8>) -> Kind? {
        let text = line.drop(while: isSpace)
        guard let first = text.first, first != UInt8(ascii: "#") else { return nil }
        if first == UInt8(ascii: "["), let close = text.firstIndex(of: UInt8(ascii: "]")) {
            return .group(String(decoding: text[text.index(after: text.startIndex)..<close], as: UTF8.self))
        }
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")) else { return nil }
        var end = equals
        while end > text.startIndex, isSpace(text[end - 1]) { end -= 1 }
        return .keyValue(String(decoding: text[..<end], as: UTF8.self))
    }

    /// GLib's g_ascii_isspace: the white space it skips before a line and a value.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }
}
