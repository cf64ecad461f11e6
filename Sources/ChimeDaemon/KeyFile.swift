import CGLib

/// One GKeyFile, freed with its owner; every string GLib hands out is freed at once.
///
/// GKeyFile keeps no line numbers, and its messages are translated (in German the line
/// it quotes stands between »…«, not “…”), so where a line number is needed it comes
/// from the parse itself: ``firstRefusedLine(of:)`` for the syntax, ``KeyFileLines``
/// for the groups and keys of a file GLib accepted.
final class KeyFile {
    private let raw: OpaquePointer

    init() {
        raw = g_key_file_new()
    }

    deinit {
        g_key_file_unref(raw)
    }

    /// Parses `bytes`; GLib's message when they are not a key file.
    func load(_ bytes: ArraySlice<UInt8>) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { text in
                // Every `Label[LANG]=` is kept, not only the current locale's: the label is
                // picked when shown.
                g_key_file_load_from_data(raw, text.baseAddress, gsize(text.count), G_KEY_FILE_KEEP_TRANSLATIONS, &error)
            }
        }
        if loaded != 0 { return nil }
        return Self.take(error)
    }

    /// The number of the line GLib refuses in `bytes`, nil when it refuses none.
    ///
    /// GLib reads line by line and stops at the first line it refuses, whatever the
    /// reason (no group yet, a bad group or key name, an unsupported `Encoding=`), so
    /// the first *n* lines fail to load exactly when that line is among them. A binary
    /// search over such prefixes finds it in a few parses, with GLib's own rules and
    /// without reading its message.
    static func firstRefusedLine(of bytes: [UInt8]) -> Int? {
        // Where each line ends, its newline included; the last may have none.
        var ends = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }.map { $0 + 1 }
        if ends.last ?? 0 < bytes.count { ends.append(bytes.count) }
        guard KeyFile().load(bytes[...]) != nil else { return nil }
        // The first `accepted` lines load; the first `refused` lines do not.
        var (accepted, refused) = (0, ends.count)
        while refused - accepted > 1 {
            let middle = (accepted + refused) / 2
            if KeyFile().load(bytes[..<ends[middle - 1]]) == nil { accepted = middle } else { refused = middle }
        }
        return refused
    }

    /// The groups, in the order of the file.
    var groups: [String] {
        Self.strings(g_key_file_get_groups(raw, nil))
    }

    func keys(_ group: String) -> [String] {
        var error: UnsafeMutablePointer<GError>?
        let keys = Self.strings(g_key_file_get_keys(raw, group, nil, &error))
        _ = Self.take(error)
        return keys
    }

    /// The value of `key`, nil when absent, or GLib's message when it cannot be read.
    func string(_ group: String, _ key: String) -> Result<String?, Message> {
        guard g_key_file_has_key(raw, group, key, nil) != 0 else { return .success(nil) }
        var error: UnsafeMutablePointer<GError>?
        guard let value = g_key_file_get_string(raw, group, key, &error) else {
            return .failure(Message(Self.take(error) ?? "cannot be read"))
        }
        defer { g_free(value) }
        return .success(String(cString: value))
    }

    /// A `;`-separated list value (GLib unescapes `\;`), nil when absent.
    func stringList(_ group: String, _ key: String) -> Result<[String]?, Message> {
        guard g_key_file_has_key(raw, group, key, nil) != 0 else { return .success(nil) }
        var error: UnsafeMutablePointer<GError>?
        var length: gsize = 0
        guard let list = g_key_file_get_string_list(raw, group, key, &length, &error) else {
            return .failure(Message(Self.take(error) ?? "cannot be read"))
        }
        return .success(Self.strings(list))
    }

    /// GLib's sentence on a value it cannot read.
    struct Message: Error, CustomStringConvertible {
        let text: String
        init(_ text: String) { self.text = text }
        var description: String { text }
    }

    /// Reads and frees a NULL-terminated string vector.
    private static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { g_strfreev(vector) }
        return [String](nullTerminated: UnsafePointer(OpaquePointer(vector)))
    }

    /// Reads and frees an error; nil when there is none.
    private static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}
