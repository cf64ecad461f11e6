import Glibc

// MARK: - Files and environment without Foundation

extension String {
    /// The sentence without its final full stop, to quote it inside another one.
    var withoutFullStop: Substring { hasSuffix(".") ? dropLast() : self[...] }
}

/// The environment variable `name`; unset and empty are the same here.
func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    let text = String(cString: value)
    return text.isEmpty ? nil : text
}

/// The names in `directory` (none when it cannot be read).
func fileNames(in directory: String) -> [String] {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
        let name = withUnsafePointer(to: &entry.pointee.d_name) {
            $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names
}

/// A small text file's contents (at most 64 KiB), nil when it cannot be read.
func readSmallFile(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while bytes.count < 65_536 {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { break }
        bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

extension Substring {
    /// Without leading and trailing white space.
    var trimmingSpaces: Substring {
        let start = firstIndex { !$0.isWhitespace } ?? endIndex
        let end = lastIndex { !$0.isWhitespace }.map(index(after:)) ?? start
        return self[start..<end]
    }
}

/// `path` made absolute against the working folder; `.` and `..` are left for the reader
/// to resolve.
func absolutePath(_ path: String) -> String {
    guard !path.hasPrefix("/") else { return path }
    guard let cwd = getcwd(nil, 0) else { return path }
    defer { free(cwd) }
    let base = String(cString: cwd)
    return (base == "/" ? "" : base) + "/" + path
}
