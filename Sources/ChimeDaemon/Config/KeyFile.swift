import CDesktopLibs
import Glibc

/// One GKeyFile, freed with its owner; every string GLib hands out is freed at once.
/// GLib is opened with the first one (CDesktopLibs): chimed starts without it when there
/// is no config to read.
///
/// GKeyFile keeps no line numbers, and its messages are translated (in German the line
/// it quotes stands between »…«, not “…”), so where a line number is needed it comes
/// from the parse itself: ``firstRefusedLine(of:)`` for the syntax, ``KeyFileLines``
/// for the groups and keys of a file GLib accepted.
final class KeyFile {
    private let raw: UnsafeMutableRawPointer

    /// Fails, with dlopen's reason, when GLib cannot be loaded.
    init() throws(Message) {
        guard let raw = chime_key_file_new() else {
            throw Message(chime_desktop_libs_error().map { String(cString: $0) } ?? "libglib-2.0.so.0 cannot be loaded")
        }
        self.raw = raw
    }

    deinit {
        chime_key_file_free(raw)
    }

    /// Parses `bytes`; GLib's message when they are not a key file. Every `Label[LANG]=`
    /// is kept, not only the current locale's: the label is picked when shown.
    func load(_ bytes: ArraySlice<UInt8>) -> String? {
        var error: UnsafeMutablePointer<CChar>?
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                chime_key_file_load(raw, text.baseAddress, text.count, &error)
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
        guard (try? KeyFile())?.load(bytes[...]) != nil else { return nil }
        // The first `accepted` lines load; the first `refused` lines do not.
        var (accepted, refused) = (0, ends.count)
        while refused - accepted > 1 {
            let middle = (accepted + refused) / 2
            if (try? KeyFile())?.load(bytes[..<ends[middle - 1]]) == nil { accepted = middle } else { refused = middle }
        }
        return refused
    }

    /// The groups, in the order of the file.
    var groups: [String] {
        Self.strings(chime_key_file_groups(raw))
    }

    func keys(_ group: String) -> [String] {
        Self.strings(chime_key_file_keys(raw, group))
    }

    /// The value of `key`, nil when absent, or GLib's message when it cannot be read.
    func string(_ group: String, _ key: String) -> Result<String?, Message> {
        guard chime_key_file_has_key(raw, group, key) != 0 else { return .success(nil) }
        var error: UnsafeMutablePointer<CChar>?
        guard let value = chime_key_file_string(raw, group, key, &error) else {
            return .failure(Message(Self.take(error) ?? "cannot be read"))
        }
        defer { chime_key_file_string_free(value) }
        return .success(String(cString: value))
    }

    /// A `;`-separated list value (GLib unescapes `\;`), nil when absent.
    func stringList(_ group: String, _ key: String) -> Result<[String]?, Message> {
        guard chime_key_file_has_key(raw, group, key) != 0 else { return .success(nil) }
        var error: UnsafeMutablePointer<CChar>?
        guard let list = chime_key_file_string_list(raw, group, key, &error) else {
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
    private static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { chime_key_file_strv_free(vector) }
        return [String](nullTerminated: UnsafePointer(OpaquePointer(vector)))
    }

    /// Reads and frees a message the C side made; nil when there is none.
    private static func take(_ message: UnsafeMutablePointer<CChar>?) -> String? {
        guard let message else { return nil }
        defer { free(message) }
        return String(cString: message)
    }
}
