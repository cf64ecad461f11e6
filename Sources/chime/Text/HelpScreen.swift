import ArgumentParser
import Localization

/// What `chime COMMAND --help` prints: ArgumentParser's help, with the usage line first,
/// where a reader looks for it, and each example whole on its line, so that one pasted
/// from a narrow terminal is still one command.
enum HelpScreen {
    static func text(for error: Error) -> String {
        let wrapped = Chime.fullMessage(for: error)
        // Wide enough that ArgumentParser wraps nothing: the examples are taken from here.
        let whole = Chime.fullMessage(for: error, columns: 100_000)
        return usageFirst(examplesWhole(wrapped.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                                        from: whole.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)))
            .joined(separator: "\n")
    }

    /// `lines` with their Examples block (from "Examples:" to the next blank line)
    /// replaced by the same block of `unwrapped`.
    static func examplesWhole(_ lines: [String], from unwrapped: [String]) -> [String] {
        guard let start = examplesStart(lines), let wholeStart = examplesStart(unwrapped) else { return lines }
        let end = blockEnd(lines, after: start), wholeEnd = blockEnd(unwrapped, after: wholeStart)
        return Array(lines[..<start]) + unwrapped[wholeStart..<wholeEnd] + lines[end...]
    }

    /// `lines` with the USAGE block moved to the top, a blank line after it.
    static func usageFirst(_ lines: [String]) -> [String] {
        guard let start = lines.firstIndex(where: { $0.hasPrefix("USAGE:") }), start > 0 else { return lines }
        var end = blockEnd(lines, after: start)
        if end < lines.count { end += 1 }
        var rest = lines
        let usage = Array(rest[start..<end])
        rest.removeSubrange(start..<end)
        return usage + (usage.last?.isEmpty == false ? [""] : []) + rest
    }

    private static func examplesStart(_ lines: [String]) -> Int? {
        lines.firstIndex { $0 == "Examples:" || $0 == "Example:" }
    }

    /// The index of the first blank line after `start`, or the end.
    private static func blockEnd(_ lines: [String], after start: Int) -> Int {
        lines[(start + 1)...].firstIndex { $0.isEmpty } ?? lines.count
    }
}
