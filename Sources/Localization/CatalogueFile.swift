import Glibc

/// Checks a `.mo` file before gettext is given it: its header and every string it
/// points to lie inside the file.
///
/// An app's catalogue comes from anywhere (a package, the user's own folder); glibc
/// checks less than this before trusting its offsets, and a damaged file is to show the
/// untranslated text with one log line, not to take chimed down. The layout is GNU
/// gettext's: magic `0x950412de` in the file's byte order, revision, the number of
/// strings N, the offsets of the original and translated tables (N pairs of length and
/// offset each), the hash table's size and offset.
enum CatalogueFile {
    /// Larger catalogues are refused: a big application's is a few hundred KiB.
    static let sizeLimit = 16 * 1024 * 1024

    enum Check: Equatable {
        case sound
        case absent
        case damaged(String)
    }

    static func check(_ path: String) -> Check {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return errno == ENOENT || errno == ENOTDIR ? .absent : .damaged(String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .damaged("not a regular file") }
        guard info.st_size <= sizeLimit else { return .damaged("larger than \(sizeLimit / 1024 / 1024) MiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes[filled...].withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return .damaged("cannot be read") }
            filled += count
        }
        return validate(bytes).map { .damaged($0) } ?? .sound
    }

    /// Why `bytes` are not a sound catalogue; nil when they are.
    static func validate(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 28 else { return "too short for a catalogue header" }
        let swapped: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xde, 0x12, 0x04, 0x95): swapped = false
        case (0x95, 0x04, 0x12, 0xde): swapped = true
        default: return "not a gettext catalogue (wrong magic number)"
        }
        func word(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            let b = bytes[at..<at + 4].map(Int.init)
            return swapped ? b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3] : b[3] << 24 | b[2] << 16 | b[1] << 8 | b[0]
        }
        guard let revision = word(4), revision >> 16 <= 1, let count = word(8), let originals = word(12),
              let translations = word(16), let hashSize = word(20), let hashOffset = word(24) else {
            return "its header is cut short"
        }
        guard count <= bytes.count / 8 else { return "it claims more strings than it can hold" }
        for table in [originals, translations] {
            for entry in 0..<count {
                guard let length = word(table + 8 * entry), let offset = word(table + 8 * entry + 4) else {
                    return "its string table is cut short"
                }
                // Each string ends with a NUL inside the file.
                guard offset + length < bytes.count, bytes[offset + length] == 0 else {
                    return "string \(entry) lies outside the file"
                }
            }
        }
        if hashSize > 0 {
            guard hashSize <= bytes.count / 4, hashOffset + 4 * hashSize <= bytes.count else { return "its hash table is cut short" }
            for slot in 0..<hashSize where (word(hashOffset + 4 * slot) ?? 0) > count {
                return "its hash table points past its strings"
            }
        }
        return nil
    }
}
