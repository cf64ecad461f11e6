import Localization

/// ArgumentParser's own usage errors in the session's language.
///
/// ArgumentParser writes its messages in English and does not expose their kinds, so
/// the common ones are recognised by their text, that of the version in Package.swift
/// (`UsageErrorTextTests` parses real command lines, so an upgrade that rewords one
/// fails there). A message not recognised is shown as it is, in English.
enum UsageErrorText {
    /// `message`, the first line of ArgumentParser's error, translated when it is one of
    /// the forms below.
    static func translated(_ message: String) -> String {
        translation(of: message) ?? message
    }

    /// The translation of `message`; nil when it is none of the forms known here.
    static func translation(of message: String) -> String? {
        if let v = match(message, ["Unknown option '", "'. Did you mean '", "'?"]) {
            return localized("Unknown option '%1$s'. Did you mean '%2$s'?", v[0], v[1])
        }
        if let v = match(message, ["Unknown option '", "'"]) { return localized("Unknown option '%1$s'", v[0]) }
        if let v = match(message, ["Missing value for '", "'"]) { return localized("Missing value for '%1$s'", v[0]) }
        if let v = match(message, ["Missing expected argument '", "'"]) { return localized("Missing expected argument '%1$s'", v[0]) }
        if let v = match(message, ["Unexpected argument '", "'"]) { return localized("Unexpected argument '%1$s'", v[0]) }
        if let v = match(message, ["The option '", "' does not take any value, but '", "' was specified."]) {
            return localized("The option '%1$s' does not take any value, but '%2$s' was specified.", v[0], v[1])
        }
        if let v = match(message, ["The value '", "' is invalid for '", "'"]) {
            return localized("The value '%1$s' is invalid for '%2$s'", v[0], v[1])
        }
        return nil
    }

    /// The texts between `pieces` when `message` is exactly `pieces` with one text
    /// between each two of them; nil when it is not.
    static func match(_ message: String, _ pieces: [String]) -> [String]? {
        guard let first = pieces.first, let last = pieces.last, pieces.count >= 2,
              message.hasPrefix(first), message.hasSuffix(last), message.count >= first.count + last.count else { return nil }
        var rest = message.dropFirst(first.count).dropLast(last.count)
        var values: [String] = []
        for piece in pieces.dropFirst().dropLast() {
            guard let range = rest.firstRange(of: piece) else { return nil }
            values.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        return values + [String(rest)]
    }
}
