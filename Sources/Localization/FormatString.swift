/// Fills a gettext format string: `%s` and `%d` take the arguments in order, `%1$s`,
/// `%2$d`… by position (so a translation may reorder them), and `%%` is a `%`.
///
/// Every argument arrives as text already: Chime formats its numbers itself, so only the
/// conversions xgettext and `msgfmt --check` compare (`s`, `d`) are needed. Anything else
/// after a `%` is left as it is, so a broken translation shows, never crashes.
enum FormatString {
    static func fill(_ format: String, _ arguments: [String]) -> String {
        guard format.utf8.contains(UInt8(ascii: "%")) else { return format }
        var result = ""
        var next = 0
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                result += "%"
                rest = rest.dropFirst()
                continue
            }
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            var position: Int?
            var spec = rest
            if !digits.isEmpty, rest.dropFirst(digits.count).first == "$", let number = Int(digits) {
                position = number - 1
                spec = rest.dropFirst(digits.count + 1)
            }
            guard let conversion = spec.first, conversion == "s" || conversion == "d" else {
                result += "%"
                continue
            }
            let index = position ?? next
            next = index + 1
            result += arguments.indices.contains(index) ? arguments[index] : ""
            rest = spec.dropFirst()
        }
        return result + rest
    }
}
