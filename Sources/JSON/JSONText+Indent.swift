extension JSONText {
    /// `json`, a JSON text such as chimed's `ListJSON` and `GetJSON` replies (compact, for
    /// the bus), laid out as ``rendered(indent:)`` lays out a value, so every `--json`
    /// output of chime reads the same; nothing but the whitespace between tokens changes.
    ///
    /// Works on the text, not a parsed value: chime has no JSON reader, and one would
    /// round numbers and lose the order of keys on the way.
    public static func indented(_ json: String) -> String {
        let bytes = Array(json.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        var depth = 0
        var inString = false
        var escaping = false
        func newline() {
            out.append(UInt8(ascii: "\n"))
            out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
        }
        /// The index of the first byte from `index` on that is not whitespace.
        func skipSpace(_ index: Int) -> Int {
            var index = index
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
            return index
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if inString {
                out.append(byte)
                if escaping { escaping = false } else if byte == UInt8(ascii: "\\") { escaping = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(byte)
                let next = skipSpace(index)
                // An empty object or array stays on its line, as rendered() writes it.
                if next < bytes.count, bytes[next] == byte + 2 {
                    out.append(bytes[next])
                    index = next + 1
                } else {
                    depth += 1
                    newline()
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
                newline()
                out.append(byte)
            case UInt8(ascii: ","):
                out.append(byte)
                newline()
            case UInt8(ascii: ":"):
                out.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
            case 0x20, 0x0A, 0x0D, 0x09:
                break
            default:
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
