import Glibc

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

// MARK: - Width

extension HumanText {
    /// How wide output for people may be: `COLUMNS` when it is a number (as `ls` and `ps`
    /// read it), else the terminal's width when standard output is one; nil when it is a
    /// pipe or a file, which get whole lines, so `grep` and `cut` see every title in full.
    static func terminalWidth() -> Int? {
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let columns = Int(text), columns > 0 { return columns }
        var size = winsize()
        guard isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// How many terminal columns `text` takes: two for a wide character (CJK, most emoji),
    /// one for any other; combining marks are part of their character already.
    static func columns(of text: String) -> Int {
        text.reduce(0) { $0 + (isWide($1) ? 2 : 1) }
    }

    /// `text` cut to `width` columns, its end replaced by an ellipsis when it is longer.
    static func truncated(_ text: String, to width: Int) -> String {
        guard columns(of: text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let size = isWide(character) ? 2 : 1
            guard used + size <= width - 1 else { break }
            result.append(character)
            used += size
        }
        return result + "…"
    }

    /// East Asian Wide and Fullwidth characters, and emoji shown as pictures: what a terminal
    /// draws two columns wide (wcwidth's 2, without asking the locale).
    private static func isWide(_ character: Character) -> Bool {
        guard let scalar = character.unicodeScalars.first else { return false }
        if character.unicodeScalars.count > 1, character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return true }
        switch scalar.value {
        case 0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0, 0x23F3, 0x25FD...0x25FE,
             0x2614...0x2615, 0x2648...0x2653, 0x267F, 0x2693, 0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
             0x26CE, 0x26D4, 0x26EA, 0x26F2...0x26F3, 0x26F5, 0x26FA, 0x26FD, 0x2705, 0x270A...0x270B, 0x2728, 0x274C,
             0x274E, 0x2753...0x2755, 0x2757, 0x2795...0x2797, 0x27B0, 0x27BF, 0x2B1B...0x2B1C, 0x2B50, 0x2B55,
             0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
             0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
             0x1F004, 0x1F0CF, 0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F2FF, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
             0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
