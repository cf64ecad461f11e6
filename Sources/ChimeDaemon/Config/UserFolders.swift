import ChimeCore
import FoundationEssentials
import Glibc

/// chimed's folders in the user's home, as the XDG Base Directory specification places
/// them: the store, the history and the config.
enum UserFolders {
    /// `$XDG_DATA_HOME/chime`, or `~/.local/share/chime`.
    static var data: URL { chimeDirectory(in: "XDG_DATA_HOME", else: ".local/share") }

    /// `$XDG_STATE_HOME/chime`, or `~/.local/state/chime`: where the history lives.
    static var state: URL { chimeDirectory(in: "XDG_STATE_HOME", else: ".local/state") }

    /// `$XDG_CONFIG_HOME/chime`, or `~/.config/chime`: where the config file is.
    static var config: URL { chimeDirectory(in: "XDG_CONFIG_HOME", else: ".config") }

    /// `chime` in an XDG base directory: the variable's value, or `fallback` in the home
    /// folder when it is unset or relative (the XDG Base Directory spec calls a relative
    /// path invalid). One URL, made from the whole path and told it is a folder: each URL
    /// made costs a parse, and without the hint a stat(2) too.
    static func chimeDirectory(in variable: String, else fallback: String) -> URL {
        var base = environmentValue(variable).flatMap { $0.hasPrefix("/") ? $0 : nil } ?? homeDirectory + "/" + fallback
        while base.hasSuffix("/") { base.removeLast() }
        return URL(filePath: base + "/chime", directoryHint: .isDirectory)
    }

    /// `$HOME`, or the user's home folder in the password database when it is unset.
    static var homeDirectory: String {
        if let home = environmentValue("HOME") { return home }
        var entry = passwd(), found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(getuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let home = entry.pw_dir else { return "/" }
        return String(cString: home)
    }
}
