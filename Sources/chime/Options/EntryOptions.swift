import ArgumentParser
import Localization

/// Buttons (`-A [KEY=]LABEL`) and userInfo entries (`--user-info KEY=VALUE`) in the
/// string form chimed reads, as `chime add` and `chime edit` give them.
enum EntryOptions {
    /// A usage error for the first malformed one.
    static func validate(actions: [String], userInfo: [String]) throws {
        for entry in userInfo where !entry.contains("=") || entry.hasPrefix("=") {
            throw ValidationError(localized("malformed --user-info '%1$s': expected KEY=VALUE.", entry))
        }
        for action in actions where action.isEmpty || action.hasPrefix("=") || action.hasSuffix("=") {
            throw ValidationError(localized("malformed action '%1$s': expected [KEY=]LABEL, as in done=Done.", action))
        }
    }

    /// `action.KEY` = label (a button without a key is keyed by its index) and `userInfo.KEY` = value.
    static func entries(actions: [String], userInfo: [String]) -> [(String, String)] {
        var entries: [(String, String)] = []
        for (index, action) in actions.enumerated() {
            let parts = action.split(separator: "=", maxSplits: 1)
            entries.append(parts.count == 2 ? ("action." + parts[0], String(parts[1])) : ("action.\(index)", action))
        }
        for entry in userInfo {
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            entries.append(("userInfo." + parts[0], String(parts[1])))
        }
        return entries
    }
}
