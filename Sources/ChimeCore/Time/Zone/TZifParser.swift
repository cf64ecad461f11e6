import Glibc
import Synchronization

/// Reads TZif versions 1 to 4 (RFC 8536 / RFC 9636).
enum TZifParser {
    struct Result {
        var transitions: [Int64]
        var offsets: [Int32]
        var initialOffset: Int32
        var footer: PosixRule?
    }

    /// Real files are a few kilobytes; anything far larger is not a zone file.
    static let maximumFileSize = 1 << 20

    /// RFC 8536 §3.2: utoff "SHOULD" lie in -89999...93599; we refuse anything outside it.
    static let validOffsets: ClosedRange<Int> = -89_999...93_599

    private struct Header {
        var version: UInt8
        var isUTCount: Int
        var isStandardCount: Int
        var leapCount: Int
        var transitionCount: Int
        var typeCount: Int
        var abbreviationByteCount: Int

        func dataBlockSize(timeSize: Int) -> Int {
            transitionCount * timeSize + transitionCount + typeCount * 6 + abbreviationByteCount
                + leapCount * (timeSize + 4) + isStandardCount + isUTCount
        }
    }

    static func parse(_ bytes: [UInt8]) -> Result? {
        var reader = ByteReader(bytes)
        guard let first = readHeader(&reader, timeSize: 4) else { return nil }
        if first.version == 0 {
            return readDataBlock(&reader, header: first, timeSize: 4, footer: nil)
        }
        // Version 2+ repeats everything with 64-bit times after the 32-bit block (§3.1).
        guard reader.skip(first.dataBlockSize(timeSize: 4)),
              let second = readHeader(&reader, timeSize: 8),
              second.version == first.version
        else { return nil }
        var footerReader = reader
        guard footerReader.skip(second.dataBlockSize(timeSize: 8)),
              let footerText = readFooterText(&footerReader)
        else { return nil }
        var footer: PosixRule?
        if !footerText.isEmpty {
            guard let rule = PosixRule(footerText) else { return nil }
            footer = rule
        }
        return readDataBlock(&reader, header: second, timeSize: 8, footer: footer)
    }

    private static func readHeader(_ reader: inout ByteReader, timeSize: Int) -> Header? {
        guard let magic = reader.bytes(4), magic.elementsEqual("TZif".utf8),
              let version = reader.byte(),
              version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "4")).contains(version),
              reader.skip(15)
        else { return nil }
        var counts: [Int] = []
        for _ in 0..<6 {
            guard let count = reader.uint32() else { return nil }
            counts.append(Int(count))
        }
        let header = Header(version: version, isUTCount: counts[0], isStandardCount: counts[1],
                            leapCount: counts[2], transitionCount: counts[3],
                            typeCount: counts[4], abbreviationByteCount: counts[5])
        // §3.1: at least one type; the indicator arrays are either absent or one per type.
        guard header.typeCount > 0,
              header.isUTCount == 0 || header.isUTCount == header.typeCount,
              header.isStandardCount == 0 || header.isStandardCount == header.typeCount,
              header.dataBlockSize(timeSize: timeSize) <= reader.remaining
        else { return nil }
        return header
    }

    private static func readDataBlock(_ reader: inout ByteReader, header: Header, timeSize: Int,
                                      footer: PosixRule?) -> Result? {
        guard let times = readTransitionTimes(&reader, count: header.transitionCount, timeSize: timeSize),
              let typeIndices = reader.bytes(header.transitionCount),
              let typeOffsets = readTypeOffsets(&reader, count: header.typeCount)
        else { return nil }
        var offsets: [Int32] = []
        offsets.reserveCapacity(typeIndices.count)
        for index in typeIndices {
            guard Int(index) < typeOffsets.count else { return nil }
            offsets.append(typeOffsets[Int(index)])
        }
        // The rest (abbreviations, leap seconds, indicators) does not affect offsets,
        // but a file cut short inside it is still malformed.
        let trailing = header.abbreviationByteCount + header.leapCount * (timeSize + 4)
            + header.isStandardCount + header.isUTCount
        guard reader.skip(trailing) else { return nil }
        return Result(transitions: times, offsets: offsets, initialOffset: typeOffsets[0], footer: footer)
    }

    private static func readTransitionTimes(_ reader: inout ByteReader, count: Int, timeSize: Int) -> [Int64]? {
        var times: [Int64] = []
        times.reserveCapacity(count)
        for _ in 0..<count {
            let time: Int64
            if timeSize == 8 {
                guard let raw = reader.uint64() else { return nil }
                time = Int64(bitPattern: raw)
            } else {
                guard let raw = reader.uint32() else { return nil }
                time = Int64(Int32(bitPattern: raw))
            }
            // §3.2 requires strictly ascending times; binary search depends on it.
            if let previous = times.last, time <= previous { return nil }
            times.append(time)
        }
        return times
    }

    private static func readTypeOffsets(_ reader: inout ByteReader, count: Int) -> [Int32]? {
        var offsets: [Int32] = []
        offsets.reserveCapacity(count)
        for _ in 0..<count {
            guard let raw = reader.uint32(),
                  let isDST = reader.byte(), isDST <= 1,
                  reader.byte() != nil
            else { return nil }
            let offset = Int32(bitPattern: raw)
            guard validOffsets.contains(Int(offset)) else { return nil }
            offsets.append(offset)
        }
        return offsets
    }

    /// The footer is a newline, the TZ string (possibly empty), and a newline (§3.3).
    private static func readFooterText(_ reader: inout ByteReader) -> String? {
        guard reader.byte() == UInt8(ascii: "\n") else { return nil }
        var text: [UInt8] = []
        while let byte = reader.byte() {
            if byte == UInt8(ascii: "\n") {
                return String(decoding: text, as: UTF8.self)
            }
            text.append(byte)
        }
        return nil
    }
}

/// Bounds-checked big-endian reads; every read returns nil rather than running off the end.
private struct ByteReader {
    private let storage: [UInt8]
    private var position = 0

    init(_ storage: [UInt8]) {
        self.storage = storage
    }

    var remaining: Int { storage.count - position }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, count <= remaining else { return false }
        position += count
        return true
    }

    mutating func byte() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { position += 1 }
        return storage[position]
    }

    mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, count <= remaining else { return nil }
        defer { position += count }
        return storage[position..<(position + count)]
    }

    mutating func uint32() -> UInt32? {
        guard let slice = bytes(4) else { return nil }
        return slice.reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64() -> UInt64? {
        guard let slice = bytes(8) else { return nil }
        return slice.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
