import Glibc
import Synchronization

enum ZoneDirectory {
    static let defaultPath = "/usr/share/zoneinfo"

    /// `$TZDIR` when set and non-empty, as glibc does.
    static var path: String {
        guard let value = environmentValue("TZDIR"), !value.isEmpty else { return defaultPath }
        return value
    }

    /// Refuses anything that could escape the zone directory or is not a plausible file name.
    static func isAcceptableIdentifier(_ identifier: String) -> Bool {
        let bytes = identifier.utf8
        return !bytes.isEmpty
            && bytes.count <= 255
            && bytes.first != UInt8(ascii: "/")
            && !bytes.contains(0)
            && !identifier.contains("..")
    }

    static func knownIdentifiers() -> [String] {
        let directory = path
        let names = namesFromTzdataZi(in: directory) ?? namesFromZoneTables(in: directory)
        return Array(Set(names)).sorted()
    }

    /// `tzdata.zi` lists zones (`Z name ...`) and links (`L target name`).
    private static func namesFromTzdataZi(in directory: String) -> [String]? {
        guard let bytes = FileReader.contents(of: directory + "/tzdata.zi", limit: 16 << 20) else { return nil }
        var names: [String] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: " "))
            guard let kind = fields.first, kind.count == 1 else { continue }
            if kind.first == UInt8(ascii: "Z"), fields.count >= 2 {
                names.append(String(decoding: fields[1], as: UTF8.self))
            } else if kind.first == UInt8(ascii: "L"), fields.count >= 3 {
                names.append(String(decoding: fields[2], as: UTF8.self))
            }
        }
        return names.isEmpty ? nil : names
    }

    /// The third tab-separated column of `zone1970.tab` / `zone.tab`.
    private static func namesFromZoneTables(in directory: String) -> [String] {
        var names = ["UTC"]
        for table in ["zone1970.tab", "zone.tab"] {
            guard let bytes = FileReader.contents(of: directory + "/" + table, limit: 16 << 20) else { continue }
            for line in bytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
                let columns = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
                if columns.count >= 3 {
                    names.append(String(decoding: columns[2], as: UTF8.self))
                }
            }
        }
        return names
    }
}

enum FileReader {
    /// The whole regular file at `path`, or nil if it is missing, not regular, or over `limit` bytes.
    static func contents(of path: String, limit: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[0..<count])
            if contents.count > limit { return nil }
        }
    }

    /// The target of the symbolic link at `path`, or nil if it is not a link.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = buffer.withUnsafeMutableBufferPointer { storage -> Int in
            guard let base = storage.baseAddress else { return -1 }
            return readlink(path, base, storage.count - 1)
        }
        guard length > 0 else { return nil }
        let bytes = buffer[0..<length].map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}
