import CGLib
import ChimeCore
import Foundation

/// The user's config: which buttons each category offers and what they do.
///
/// The file is `$XDG_CONFIG_HOME/chime/config` (default `~/.config/chime/config`), in the
/// freedesktop key-file format, the format of `.desktop` files:
///
/// ```
/// [Category todo]
/// Actions=complete;snooze;log;
///
/// [Action snooze]
/// Label=Snooze 5 minutes
/// Snooze=5m
///
/// [Action log]
/// Label=Log it
/// Exec=/usr/bin/logger;-t;chime;pressed
/// Timeout=10s
/// ```
///
/// - `[Category NAME]` defines the category a notification names with `category`.
///   `Actions=` lists its buttons in order, by key, separated by `;`: the built-in
///   `complete` (Complete: the notification and its repeats are done) and `remind`
///   (Remind in 30 minutes), or keys defined by `[Action KEY]` groups. Without `Actions=`
///   the category has no buttons. A config may redefine the built-in `[Category reminder]`.
/// - `[Action KEY]` defines a button. `Label=` is the text on it (required). Then at most one of:
///   - `Snooze=DURATION` (`5m`, `1h30m`, `90s`, `2d`): the notification fires again that
///     much later; its repeats keep their times.
///   - `Exec=PROGRAM;ARG;…`: a command, as a list separated by `;` (write `\;` for a `;`
///     inside an argument). It runs without a shell; a program name without a `/` is
///     looked up in `PATH` when the button is pressed. It gets `CHIME_ID`, `CHIME_ACTION`
///     and `CHIME_USER_INFO` (JSON) in its environment and
///     `{"id":…,"action":…,"userInfo":{…}}` on standard input. `Timeout=DURATION`
///     (default 30s) stops it with SIGTERM, then SIGKILL 2 seconds later.
///   - neither: pressing the button is only announced (the `ActionInvoked` signal on the
///     bus), for the app that is listening.
///
/// Lines starting with `#` are comments. `complete`, `remind` and `default` (a click on
/// the notification itself) cannot be redefined. Any other group or key is an error,
/// so a misspelt one is reported instead of ignored.
struct Config: Equatable, Sendable {
    var categories: [String: Category]

    init(categories: [String: Category] = Category.builtIn) {
        self.categories = categories
    }

    /// How long an `Exec=` command may run when the config gives no `Timeout=`.
    static let defaultTimeout: TimeInterval = 30

    /// Buttons every category may list without defining them.
    static let builtInActions: [String: ActionDefinition] = Dictionary(
        uniqueKeysWithValues: Category.reminder.actions.map { ($0.key, $0) }
    )

    /// `$XDG_CONFIG_HOME/chime/config`, or `~/.config/chime/config`.
    static var defaultURL: URL {
        let environment = ProcessInfo.processInfo.environment
        // The base directory spec ignores a relative XDG_CONFIG_HOME.
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("chime/config")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/chime/config")
    }

    /// The largest config read: a config with dozens of categories is a few KiB.
    static let sizeLimit = 256 * 1024

    /// Reads the config at `url`. A missing file is no error: it means the built-in
    /// categories only. On any error nothing of the file is used. Only a regular file
    /// of at most ``sizeLimit`` bytes is read (a FIFO would block the daemon's loop).
    static func load(from url: URL) -> Result<Config, ConfigError> {
        let path = url.path
        let bytes: [UInt8]
        switch BoundedFile.read(path, limit: sizeLimit) {
        case .success(let read): bytes = read
        case .failure(.missing): return .success(Config())
        case .failure(let refusal): return .failure(ConfigError(path: path, line: nil, message: "The config \(refusal)."))
        }
        // GLib parses the very bytes whose lines are counted here, so a line number
        // always points into the text that was read.
        let file = KeyFile()
        if let message = file.load(bytes) {
            let line = KeyFileLines.firstInvalidLine(bytes) ?? KeyFileLines.line(quotedIn: message, of: bytes)
            return .failure(ConfigError(path: path, line: line, message: "Not a key file: \(message)."))
        }
        var reader = Reader(file: file, lines: KeyFileLines(bytes), path: path)
        return reader.read()
    }
}

/// Why a config was not used: the file, the line when there is one, and a sentence.
struct ConfigError: Error, Equatable, Sendable, CustomStringConvertible {
    let path: String
    let line: Int?
    let message: String

    var description: String {
        if let line { return "\(path):\(line): \(message)" }
        return "\(path): \(message)"
    }
}

// MARK: - Meaning

/// Turns the groups of a parsed key file into categories, or the first error by line.
private struct Reader {
    let file: KeyFile
    let lines: KeyFileLines
    let path: String
    var errors: [ConfigError] = []

    init(file: KeyFile, lines: KeyFileLines, path: String) {
        self.file = file
        self.lines = lines
        self.path = path
    }

    private enum Group {
        case category(String)
        case action(String)
    }

    mutating func read() -> Result<Config, ConfigError> {
        var categoryGroups: [(group: String, name: String)] = []
        var actions: [String: ActionDefinition] = [:]
        // Defined, even when broken: a category listing it is not told it does not exist.
        var definedActions: Set<String> = []
        for group in file.groups {
            switch classify(group) {
            case .category(let name)?:
                categoryGroups.append((group, name))
            case .action(let key)?:
                definedActions.insert(key)
                if let definition = action(key, group: group) { actions[key] = definition }
            case nil:
                break
            }
        }
        var config = Config()
        for (group, name) in categoryGroups {
            if let category = category(name, group: group, actions: actions, defined: definedActions) {
                config.categories[name] = category
            }
        }
        if let first = errors.min(by: { ($0.line ?? 0) < ($1.line ?? 0) }) { return .failure(first) }
        return .success(config)
    }

    private mutating func classify(_ group: String) -> Group? {
        for (prefix, make) in [("Category", Group.category), ("Action", Group.action)] {
            guard group == prefix || group.hasPrefix(prefix + " ") else { continue }
            let name = group.dropFirst(prefix.count).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                fail(group, nil, "The \(prefix.lowercased()) name is empty: write [\(prefix) NAME].")
                return nil
            }
            return make(name)
        }
        fail(group, nil, "Chime knows no group [\(group)]: use [Category NAME] or [Action KEY].")
        return nil
    }

    private mutating func action(_ key: String, group: String) -> ActionDefinition? {
        guard checkKeys(group, allowed: ["Label", "Snooze", "Exec", "Timeout"]) else { return nil }
        if key == "default" {
            fail(group, nil, "'default' is a click on the notification itself, not a button: choose another key.")
            return nil
        }
        if Config.builtInActions[key] != nil {
            fail(group, nil, "'\(key)' is a built-in action and cannot be redefined: choose another key.")
            return nil
        }
        guard let label = string(group, "Label") else { return nil }
        guard let label else {
            fail(group, nil, "Label is missing: every button needs the text it shows.")
            return nil
        }
        guard !label.trimmingCharacters(in: .whitespaces).isEmpty else {
            fail(group, "Label", "Label is empty: every button needs the text it shows.")
            return nil
        }
        guard let snoozeText = string(group, "Snooze"), let exec = stringList(group, "Exec"),
              let timeoutText = string(group, "Timeout") else { return nil }
        if snoozeText != nil, exec != nil {
            fail(group, "Exec", "A button either snoozes or runs a command: give Snooze or Exec, not both.")
            return nil
        }
        if timeoutText != nil, exec == nil {
            fail(group, "Timeout", "Timeout limits a command: it needs Exec.")
            return nil
        }
        if let snoozeText {
            guard let seconds = duration(snoozeText, group, "Snooze") else { return nil }
            return ActionDefinition(key: key, label: label, handler: .snooze(seconds))
        }
        if let exec {
            guard let program = exec.first, !program.isEmpty else {
                fail(group, "Exec", "Exec is empty: give the program and its arguments, separated by ';'.")
                return nil
            }
            var timeout = Config.defaultTimeout
            if let timeoutText {
                guard let seconds = duration(timeoutText, group, "Timeout") else { return nil }
                timeout = seconds
            }
            return ActionDefinition(key: key, label: label, handler: .command(exec, timeout: timeout))
        }
        return ActionDefinition(key: key, label: label, handler: .announce)
    }

    private mutating func category(
        _ name: String, group: String, actions: [String: ActionDefinition], defined: Set<String>
    ) -> Category? {
        guard checkKeys(group, allowed: ["Actions"]) else { return nil }
        guard let listed = stringList(group, "Actions") else { return nil }
        var definitions: [ActionDefinition] = []
        var broken = false
        for item in listed ?? [] {
            let key = item.trimmingCharacters(in: .whitespaces)
            // "a;;b" has an empty item; a trailing ';' is the format's own habit.
            guard !key.isEmpty else { continue }
            if definitions.contains(where: { $0.key == key }) {
                fail(group, "Actions", "Actions lists '\(key)' twice.")
                return nil
            }
            if let definition = actions[key] ?? (defined.contains(key) ? nil : Config.builtInActions[key]) {
                definitions.append(definition)
            } else if defined.contains(key) {
                // Its own group's error is reported already.
                broken = true
            } else if key == "default" {
                fail(group, "Actions", "'default' is a click on the notification itself, not a button: remove it from Actions.")
                return nil
            } else {
                fail(group, "Actions", "Actions lists '\(key)', which is not an action: define [Action \(key)], or use complete or remind.")
                return nil
            }
        }
        return broken ? nil : Category(name: name, actions: definitions)
    }

    // MARK: Values

    /// False (and an error) when `group` has a key outside `allowed`.
    private mutating func checkKeys(_ group: String, allowed: Set<String>) -> Bool {
        for key in file.keys(group) where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            fail(group, key, "[\(group)] has no key '\(key)': its keys are \(known).")
            return false
        }
        return true
    }

    /// `.some(nil)` when the key is absent; nil (and an error) when GLib refuses the value.
    private mutating func string(_ group: String, _ key: String) -> String?? {
        switch file.string(group, key) {
        case .success(let value): return .some(value)
        case .failure(let message):
            fail(group, key, "\(key): \(message).")
            return nil
        }
    }

    private mutating func stringList(_ group: String, _ key: String) -> [String]?? {
        switch file.stringList(group, key) {
        case .success(let value): return .some(value)
        case .failure(let message):
            fail(group, key, "\(key): \(message).")
            return nil
        }
    }

    private mutating func duration(_ text: String, _ group: String, _ key: String) -> TimeInterval? {
        do {
            return try WhenParser.duration(text, field: key)
        } catch {
            fail(group, key, "\(error.description)")
            return nil
        }
    }

    /// Records an error in `group`, at `key`'s line, or at the group's header without one.
    private mutating func fail(_ group: String, _ key: String?, _ sentence: String) {
        let line = key.flatMap { lines.line(of: $0, in: group) } ?? lines.line(of: group)
        let prefix = sentence.hasPrefix("[\(group)]") ? "" : "[\(group)] "
        errors.append(ConfigError(path: path, line: line, message: prefix + sentence))
    }
}

// MARK: - GLib's key file

/// One GKeyFile, freed with its owner; every string GLib hands out is freed at once.
private final class KeyFile {
    private let raw: OpaquePointer

    init() {
        raw = g_key_file_new()
    }

    deinit {
        g_key_file_unref(raw)
    }

    /// Parses `bytes`; GLib's message when they are not a key file.
    func load(_ bytes: [UInt8]) -> String? {
        var error: UnsafeMutablePointer<GError>?
        let loaded = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: gchar.self) { text in
                g_key_file_load_from_data(raw, text.baseAddress, gsize(text.count), G_KEY_FILE_NONE, &error)
            }
        }
        if loaded != 0 { return nil }
        return Self.take(error)
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

    struct Message: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }

    /// Reads and frees a NULL-terminated string vector.
    private static func strings(_ vector: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let vector else { return [] }
        defer { g_strfreev(vector) }
        var result: [String] = []
        var index = 0
        while let item = vector[index] {
            result.append(String(cString: item))
            index += 1
        }
        return result
    }

    /// Reads and frees an error; nil when there is none.
    private static func take(_ error: UnsafeMutablePointer<GError>?) -> String? {
        guard let error else { return nil }
        defer { g_error_free(error) }
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}

extension KeyFile.Message: CustomStringConvertible {
    var description: String { text }
}

// MARK: - Lines

/// Where groups and keys are in the text, since GKeyFile keeps no line numbers.
///
/// Follows GLib's own reading: lines end at `\n` (a `\r` before it is dropped), leading
/// whitespace is skipped, `#` starts a comment, a repeated group continues the first one,
/// and the last of a repeated key wins.
private struct KeyFileLines {
    private var groupLines: [String: Int] = [:]
    private var keyLines: [String: [String: Int]] = [:]

    init(_ bytes: [UInt8]) {
        var group: String?
        for (number, line) in Self.lines(bytes) {
            switch Self.kind(line) {
            case .group(let name):
                group = name
                if groupLines[name] == nil { groupLines[name] = number }
            case .keyValue(let key):
                if let group { keyLines[group, default: [:]][key] = number }
            case .blank, .invalid:
                break
            }
        }
    }

    func line(of group: String) -> Int? { groupLines[group] }

    func line(of key: String, in group: String) -> Int? { keyLines[group]?[key] }

    /// The first line GLib cannot read: not blank, a comment, a group or `key=value`, or
    /// a `key=value` before any group.
    static func firstInvalidLine(_ bytes: [UInt8]) -> Int? {
        var inGroup = false
        for (number, line) in lines(bytes) {
            switch kind(line) {
            case .blank: continue
            case .group: inGroup = true
            case .keyValue: if !inGroup { return number }
            case .invalid: return number
            }
        }
        return nil
    }

    /// The first line equal to the text GLib's message quotes (“…”), if any.
    static func line(quotedIn message: String, of bytes: [UInt8]) -> Int? {
        guard let open = message.firstIndex(of: "“"), let close = message[open...].firstIndex(of: "”") else { return nil }
        let quoted = message[message.index(after: open)..<close]
        return lines(bytes).first { String(decoding: $0.text, as: UTF8.self).contains(quoted) }?.number
    }

    private enum Kind {
        case blank
        case group(String)
        case keyValue(String)
        case invalid
    }

    private static func kind(_ line: ArraySlice<UInt8>) -> Kind {
        let text = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = text.first, first != UInt8(ascii: "#") else { return .blank }
        if first == UInt8(ascii: "[") {
            guard let close = text.lastIndex(of: UInt8(ascii: "]")) else { return .invalid }
            let name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            // GLib's rule for a group name: not empty, no brackets, no control characters.
            guard !name.isEmpty, !name.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }),
                  rest.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) else { return .invalid }
            return .group(String(decoding: name, as: UTF8.self))
        }
        guard let equals = text.firstIndex(of: UInt8(ascii: "=")), equals != text.startIndex else { return .invalid }
        let key = String(decoding: text[..<equals], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return key.isEmpty ? .invalid : .keyValue(key)
    }

    private static func lines(_ bytes: [UInt8]) -> [(number: Int, text: ArraySlice<UInt8>)] {
        var result: [(number: Int, text: ArraySlice<UInt8>)] = []
        for (index, var line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            result.append((index + 1, line))
        }
        return result
    }
}
