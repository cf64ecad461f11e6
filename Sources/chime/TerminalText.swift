extension HumanText {
    /// `text` made safe to print to a terminal: every control character (C0, DEL and C1)
    /// is shown as `\t`, `\n`, `\r` or `\xHH` (as Python's repr writes them), so a title
    /// cannot move the cursor, recolour the screen or retitle the window with escape
    /// sequences. `keepingNewlines` leaves line feeds for layouts that show several lines.
    ///
    /// For people only: a backslash is not doubled, so the form is not reversible. The
    /// `--json` output carries the exact text.
    static func escaped(_ text: String, keepingNewlines: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) && !(keepingNewlines && $0 == "\n") }) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingNewlines && scalar == "\n") else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\t": result += "\\t"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            default:
                let hex = String(scalar.value, radix: 16)
                result += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }

    /// C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F): what terminals act on.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
