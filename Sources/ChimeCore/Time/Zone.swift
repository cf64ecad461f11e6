import Glibc
import Synchronization

/// A time zone read from the system's TZif files (RFC 8536): offsets from UTC by instant.
///
/// Two zones are equal when their identifiers are equal; the parsed rules are not compared.
public struct Zone: Sendable, Hashable, CustomStringConvertible {
    /// The zone's name, such as `"Europe/Berlin"` or `"UTC"`.
    public let identifier: String
    let rules: ZoneRules

    init(identifier: String, rules: ZoneRules) {
        self.identifier = identifier
        self.rules = rules
    }

    /// Reads the zone named `identifier` from `$TZDIR` (or `/usr/share/zoneinfo`).
    ///
    /// Returns `nil` when the name is not a safe relative path, or when the file is missing,
    /// unreadable, or not a well-formed TZif file.
    public init?(identifier: String) {
        self.init(identifier: identifier, in: ZoneDirectory.path)
    }

    /// Reads the zone named `identifier` from `directory` (tests give their own, as TZDIR
    /// is the whole process's).
    init?(identifier: String, in directory: String) {
        guard ZoneDirectory.isAcceptableIdentifier(identifier),
              let rules = ZoneRules(contentsOfFile: directory + "/" + identifier)
        else { return nil }
        self.init(identifier: identifier, rules: rules)
    }

    /// The offset from UTC, in seconds, in force at `unixSeconds` (UTC seconds since 1970).
    public func secondsFromGMT(at unixSeconds: Int) -> Int {
        rules.secondsFromGMT(at: unixSeconds)
    }

    /// The system's zone, read afresh on every call (from `TZ`, else `/etc/localtime`).
    public static var system: Zone {
        SystemZone.load()
    }

    private static let kept = Mutex<Zone?>(nil)

    /// The system's zone, read once and kept until ``resetCurrent()``, which chimed calls
    /// when the system's zone changes: every fire and every answer reads it.
    public static var current: Zone {
        kept.withLock { kept in
            if let kept { return kept }
            let zone = system
            kept = zone
            return zone
        }
    }

    /// Forgets the kept system zone: the next ``current`` reads it again.
    public static func resetCurrent() {
        kept.withLock { $0 = nil }
    }

    /// Coordinated Universal Time; needs no zone file.
    public static let utc = Zone(identifier: "UTC", rules: .fixed(offset: 0))

    /// Every zone and link name the installed tz database offers, sorted.
    public static var knownIdentifiers: [String] {
        ZoneDirectory.knownIdentifiers()
    }

    public var description: String { identifier }

    public static func == (lhs: Zone, rhs: Zone) -> Bool {
        lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }
}

// MARK: - Rules

/// The parsed content of one zone: transitions, their offsets, and the rule for later instants.
final class ZoneRules: Sendable {
    /// Transition instants, strictly ascending (RFC 8536 §3.2).
    let transitions: [Int64]
    /// `offsets[i]` is in force from `transitions[i]` until the next transition.
    let offsets: [Int32]
    /// In force before the first transition: time type 0 (RFC 8536 §3.2).
    let initialOffset: Int32
    /// Applies after the last transition (RFC 8536 §3.3).
    let footer: PosixRule?

    init(transitions: [Int64], offsets: [Int32], initialOffset: Int32, footer: PosixRule?) {
        self.transitions = transitions
        self.offsets = offsets
        self.initialOffset = initialOffset
        self.footer = footer
    }

    convenience init(posixRule: PosixRule) {
        self.init(transitions: [], offsets: [], initialOffset: Int32(posixRule.standardOffset), footer: posixRule)
    }

    static func fixed(offset: Int32) -> ZoneRules {
        ZoneRules(transitions: [], offsets: [], initialOffset: offset, footer: nil)
    }

    convenience init?(contentsOfFile path: String) {
        guard let bytes = FileReader.contents(of: path, limit: TZifParser.maximumFileSize) else { return nil }
        self.init(tzif: bytes)
    }

    convenience init?(tzif bytes: [UInt8]) {
        guard let parsed = TZifParser.parse(bytes) else { return nil }
        self.init(transitions: parsed.transitions, offsets: parsed.offsets,
                  initialOffset: parsed.initialOffset, footer: parsed.footer)
    }

    func secondsFromGMT(at instant: Int) -> Int {
        guard let last = transitions.last else {
            return footer?.secondsFromGMT(at: instant) ?? Int(initialOffset)
        }
        if instant > last, let footer {
            return footer.secondsFromGMT(at: instant)
        }
        let count = transitionsNotAfter(instant)
        return count == 0 ? Int(initialOffset) : Int(offsets[count - 1])
    }

    /// How many transitions happen at or before `instant`.
    private func transitionsNotAfter(_ instant: Int) -> Int {
        let target = Int64(instant)
        var low = 0
        var high = transitions.count
        while low < high {
            let middle = low + (high - low) / 2
            if transitions[middle] <= target {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low
    }
}

// MARK: - TZif parsing

/// Reads TZif versions 1 to 4 (RFC 8536 / RFC 9636).
private enum TZifParser {
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

// MARK: - POSIX TZ rules

/// A POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3`, with the RFC 8536 §3.3.1
/// extensions (transition hours from -167 to 167).
struct PosixRule: Sendable, Hashable {
    /// Seconds east of UTC; note POSIX writes offsets west-positive.
    let standardOffset: Int
    let daylight: DaylightRule?

    struct DaylightRule: Sendable, Hashable {
        let offset: Int
        let start: RuleDate
        /// Seconds after local midnight, in standard time.
        let startTime: Int
        let end: RuleDate
        /// Seconds after local midnight, in daylight time.
        let endTime: Int
    }

    enum RuleDate: Sendable, Hashable {
        /// `Jn`: 1...365, February 29 never counted.
        case julianSkippingLeapDay(Int)
        /// `n`: 0...365, February 29 counted.
        case zeroBasedDay(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    init(standardOffset: Int, daylight: DaylightRule?) {
        self.standardOffset = standardOffset
        self.daylight = daylight
    }

    init?(_ text: String) {
        var parser = PosixRuleParser(text)
        guard let rule = parser.parseRule() else { return nil }
        self = rule
    }

    func secondsFromGMT(at instant: Int) -> Int {
        guard let daylight else { return standardOffset }
        return isDaylightTime(at: instant, daylight) ? daylight.offset : standardOffset
    }

    private func isDaylightTime(at instant: Int, _ daylight: DaylightRule) -> Bool {
        // The Gregorian calendar repeats every 400 years, weekdays included, so the
        // rule's answer does too; folding keeps the arithmetic far from overflow.
        let folded = Calendar400.fold(instant)
        let year = Calendar400.year(ofDay: (folded + standardOffset).floorDivided(by: 86_400))
        // Rule times may reach ±167 h, so a neighbouring year's change can land in this one.
        // Among equal instants the later-listed change wins, so when one year's end meets
        // the next year's start (all-year DST) daylight time stays, as zic's output does.
        var latest: (instant: Int, isDaylight: Bool)?
        var earliest: (instant: Int, isDaylight: Bool)?
        func consider(_ instant: Int, isDaylight: Bool) {
            if instant <= folded, instant >= (latest?.instant ?? Int.min) { latest = (instant, isDaylight) }
            if instant < (earliest?.instant ?? Int.max) { earliest = (instant, isDaylight) }
        }
        for candidate in (year - 1)...(year + 1) {
            let newYear = LocalDateTime.daysFromCivil(year: candidate, month: 1, day: 1)
            let start = Calendar400.day(of: daylight.start, year: candidate, newYear: newYear)
            let end = Calendar400.day(of: daylight.end, year: candidate, newYear: newYear)
            consider(start * 86_400 + daylight.startTime - standardOffset, isDaylight: true)
            consider(end * 86_400 + daylight.endTime - daylight.offset, isDaylight: false)
        }
        if let latest { return latest.isDaylight }
        return !(earliest?.isDaylight ?? false)
    }
}

/// Proleptic Gregorian day arithmetic (days since 1970-01-01).
private enum Calendar400 {
    static let daysPerCycle = 146_097
    static let secondsPerCycle = daysPerCycle * 86_400

    /// Maps any instant into 1970..<2370 at the same calendar position.
    static func fold(_ instant: Int) -> Int {
        let remainder = instant % secondsPerCycle
        return remainder < 0 ? remainder + secondsPerCycle : remainder
    }

    /// Days before the first of `month` in a common year.
    private static let daysBeforeMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]

    static func year(ofDay days: Int) -> Int { LocalDateTime.civilFromDays(days).year }

    /// The day a rule date falls on; `newYear` is the day of January 1 of `year`.
    static func day(of date: PosixRule.RuleDate, year: Int, newYear: Int) -> Int {
        switch date {
        case .julianSkippingLeapDay(let number):
            let leapDay = LocalDateTime.isLeap(year) && number >= 60 ? 1 : 0
            return newYear + number - 1 + leapDay
        case .zeroBasedDay(let number):
            return newYear + number
        case .monthWeekDay(let month, let week, let weekday):
            let leapDay = month > 2 && LocalDateTime.isLeap(year) ? 1 : 0
            let first = newYear + daysBeforeMonth[month - 1] + leapDay
            let firstWeekday = (first + 4).floorModulo(7)  // 1970-01-01 was a Thursday.
            var dayOfMonth = (weekday - firstWeekday).floorModulo(7) + 7 * (week - 1)
            while dayOfMonth >= LocalDateTime.daysIn(month: month, year: year) { dayOfMonth -= 7 }
            return first + dayOfMonth
        }
    }
}


/// Parses `std offset [dst [offset] [,start[/time],end[/time]]]`.
private struct PosixRuleParser {
    private let characters: [UInt8]
    private var position = 0

    init(_ text: String) {
        characters = Array(text.utf8)
    }

    mutating func parseRule() -> PosixRule? {
        guard parseName(), let standardWest = parseSignedTime(maximumHours: 24) else { return nil }
        let standardOffset = -standardWest
        guard TZifParser.validOffsets.contains(standardOffset) else { return nil }
        if atEnd { return PosixRule(standardOffset: standardOffset, daylight: nil) }

        guard parseName() else { return nil }
        var daylightOffset = standardOffset + 3600
        if let next = peek, next != UInt8(ascii: ",") {
            guard let daylightWest = parseSignedTime(maximumHours: 24) else { return nil }
            daylightOffset = -daylightWest
        }
        guard TZifParser.validOffsets.contains(daylightOffset) else { return nil }

        // POSIX leaves a missing rule to the implementation; glibc and zic assume US rules.
        var start = PosixRule.RuleDate.monthWeekDay(month: 3, week: 2, weekday: 0)
        var end = PosixRule.RuleDate.monthWeekDay(month: 11, week: 1, weekday: 0)
        var startTime = 7200
        var endTime = 7200
        if !atEnd {
            guard consume(","), let parsedStart = parseDate() else { return nil }
            start = parsedStart
            if consume("/") {
                guard let time = parseSignedTime(maximumHours: 167) else { return nil }
                startTime = time
            }
            guard consume(","), let parsedEnd = parseDate() else { return nil }
            end = parsedEnd
            if consume("/") {
                guard let time = parseSignedTime(maximumHours: 167) else { return nil }
                endTime = time
            }
        }
        guard atEnd else { return nil }
        let daylight = PosixRule.DaylightRule(offset: daylightOffset, start: start, startTime: startTime,
                                              end: end, endTime: endTime)
        return PosixRule(standardOffset: standardOffset, daylight: daylight)
    }

    private var atEnd: Bool { position >= characters.count }

    private var peek: UInt8? { atEnd ? nil : characters[position] }

    private mutating func consume(_ character: Unicode.Scalar) -> Bool {
        guard peek == UInt8(ascii: character) else { return false }
        position += 1
        return true
    }

    /// Either three or more letters, or `<` letters, digits and signs `>`.
    private mutating func parseName() -> Bool {
        if consume("<") {
            let start = position
            while let character = peek, character.isASCIIAlphanumeric
                    || character == UInt8(ascii: "+") || character == UInt8(ascii: "-") {
                position += 1
            }
            return position - start >= 3 && consume(">")
        }
        let start = position
        while let character = peek, character.isASCIILetter { position += 1 }
        return position - start >= 3
    }

    /// `[+-]hh[:mm[:ss]]`, in seconds.
    private mutating func parseSignedTime(maximumHours: Int) -> Int? {
        var sign = 1
        if consume("-") { sign = -1 } else { _ = consume("+") }
        guard let hours = parseNumber(maximumDigits: 3), hours <= maximumHours else { return nil }
        var seconds = hours * 3600
        if consume(":") {
            guard let minutes = parseNumber(maximumDigits: 2), minutes <= 59 else { return nil }
            seconds += minutes * 60
            if consume(":") {
                guard let extra = parseNumber(maximumDigits: 2), extra <= 59 else { return nil }
                seconds += extra
            }
        }
        return sign * seconds
    }

    private mutating func parseDate() -> PosixRule.RuleDate? {
        if consume("J") {
            guard let day = parseNumber(maximumDigits: 3), (1...365).contains(day) else { return nil }
            return .julianSkippingLeapDay(day)
        }
        if consume("M") {
            guard let month = parseNumber(maximumDigits: 2), (1...12).contains(month), consume("."),
                  let week = parseNumber(maximumDigits: 1), (1...5).contains(week), consume("."),
                  let weekday = parseNumber(maximumDigits: 1), (0...6).contains(weekday)
            else { return nil }
            return .monthWeekDay(month: month, week: week, weekday: weekday)
        }
        guard let day = parseNumber(maximumDigits: 3), (0...365).contains(day) else { return nil }
        return .zeroBasedDay(day)
    }

    private mutating func parseNumber(maximumDigits: Int) -> Int? {
        var value = 0
        var digits = 0
        while digits < maximumDigits, let character = peek, character.isASCIIDigit {
            value = value * 10 + Int(character - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        return digits > 0 ? value : nil
    }
}

extension UInt8 {
    fileprivate var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }
    fileprivate var isASCIILetter: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
    }
    fileprivate var isASCIIAlphanumeric: Bool { isASCIIDigit || isASCIILetter }
}

// MARK: - Files and the zone directory

private enum ZoneDirectory {
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

private enum FileReader {
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

// MARK: - The system zone

enum SystemZone {
    static func load() -> Zone {
        if let tz = environmentValue("TZ") {
            return fromTZVariable(tz)
        }
        return fromLocaltime() ?? .utc
    }

    /// Follows glibc: `:` prefix stripped; a zone file name, an absolute path, or a POSIX rule.
    static func fromTZVariable(_ value: String) -> Zone {
        let text = value.hasPrefix(":") ? String(value.dropFirst()) : value
        if text.isEmpty { return .utc }
        if text.hasPrefix("/") {
            if !text.utf8.contains(0), let rules = ZoneRules(contentsOfFile: text) {
                return Zone(identifier: identifier(forPath: text), rules: rules)
            }
        } else if let zone = Zone(identifier: text) {
            return zone
        }
        if let rule = PosixRule(text) {
            return Zone(identifier: text, rules: ZoneRules(posixRule: rule))
        }
        return .utc
    }

    private static func identifier(forPath path: String) -> String {
        let prefix = ZoneDirectory.path + "/"
        guard path.hasPrefix(prefix), path.utf8.count > prefix.utf8.count else { return path }
        return String(path.dropFirst(prefix.count))
    }

    /// The zone in `localtimePath`, named by its symlink target, else by `namePath`, else "localtime".
    static func fromLocaltime(at localtimePath: String = "/etc/localtime",
                              namePath: String = "/etc/timezone") -> Zone? {
        guard let rules = ZoneRules(contentsOfFile: localtimePath) else { return nil }
        let linkName = FileReader.linkTarget(localtimePath).flatMap(identifier(forLinkTarget:))
        let name = linkName ?? debianTimezoneName(at: namePath) ?? "localtime"
        return Zone(identifier: name, rules: rules)
    }

    /// The part after the last `zoneinfo/`, without the `posix/` variant prefix.
    private static func identifier(forLinkTarget target: String) -> String? {
        // A byte search: the standard library's `ranges(of:)` instantiates generic
        // metadata on first use that cost more than reading the zone's file.
        let bytes = Array(target.utf8), marker = Array("zoneinfo/".utf8)
        guard let start = bytes.indices.reversed().first(where: { bytes[$0...].starts(with: marker) }) else { return nil }
        var name = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
        if name.hasPrefix("posix/") { name.removeFirst("posix/".count) }
        return ZoneDirectory.isAcceptableIdentifier(name) ? name : nil
    }

    /// Debian keeps the zone's name in `/etc/timezone`, which matters when `/etc/localtime` is a copy.
    private static func debianTimezoneName(at path: String) -> String? {
        guard let bytes = FileReader.contents(of: path, limit: 4096) else { return nil }
        let name = String(decoding: bytes, as: UTF8.self).trimmingSpaces
        guard ZoneDirectory.isAcceptableIdentifier(name), Zone(identifier: name) != nil else { return nil }
        return name
    }
}
