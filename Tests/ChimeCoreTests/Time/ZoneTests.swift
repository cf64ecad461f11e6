@testable import ChimeCore
import Foundation
import Testing

struct ZoneTests {
    private func zone(_ identifier: String) throws -> Zone {
        try #require(Zone(identifier: identifier))
    }

    /// Each change of offset, to the second: the offset before it and from it on.
    @Test(arguments: [
        ("Europe/Berlin", 1_774_746_000, 3_600, 7_200),  // 2026-03-29 01:00 UTC
        ("America/New_York", 1_772_953_200, -18_000, -14_400),  // 2026-03-08 07:00 UTC, 02:00 local
        ("America/New_York", 1_793_512_800, -14_400, -18_000),  // 2026-11-01 06:00 UTC
        // Lord Howe Island moves by half an hour.
        ("Australia/Lord_Howe", 1_775_314_800, 39_600, 37_800),  // 2026-04-04 15:00 UTC
        ("Australia/Lord_Howe", 1_791_041_400, 37_800, 39_600),  // 2026-10-03 15:30 UTC
        // Samoa crossed the date line: 2011-12-29 23:59:59 was followed by 2011-12-31 00:00:00.
        ("Pacific/Apia", 1_325_239_200, -36_000, 50_400),
        // Files list transitions until about 2037; later ones come from the POSIX TZ footer.
        ("Europe/Berlin", 4_109_878_800, 3_600, 7_200),  // 2100-03-28 01:00 UTC
        ("Europe/Berlin", 4_128_627_600, 7_200, 3_600),  // 2100-10-31 01:00 UTC
    ])
    func offsetsChangeToTheSecond(name: String, change: Int, before: Int, after: Int) throws {
        let zone = try zone(name)
        #expect(zone.secondsFromGMT(at: change - 1) == before)
        #expect(zone.secondsFromGMT(at: change) == after)
    }

    /// TZ as glibc reads it: a zone's name (with or without the `:`), a path, a POSIX rule.
    @Test(arguments: [
        ("Europe/Berlin", "Europe/Berlin", 3_600),
        (":Asia/Kolkata", "Asia/Kolkata", 19_800),
        ("/usr/share/zoneinfo/Australia/Lord_Howe", "Australia/Lord_Howe", 39_600),
        ("EST5EDT,M3.2.0,M11.1.0", "EST5EDT,M3.2.0,M11.1.0", -18_000),
        ("<+0330>-3:30", "<+0330>-3:30", 12_600),
        ("", "UTC", 0),
    ])
    func theSystemZoneFollowsTZ(value: String, identifier: String, offsetOnNewYearsDay2026: Int) {
        let zone = SystemZone.fromTZVariable(value)
        #expect(zone.identifier == identifier)
        #expect(zone.secondsFromGMT(at: 1_767_225_600) == offsetOnNewYearsDay2026)
    }

    /// /etc/localtime is named by its link into a zone folder, else by Debian's
    /// /etc/timezone, else "localtime"; a file that is no zone is none.
    @Test func theSystemZoneIsNamedByItsLinkOrByDebiansFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ZoneTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let link = folder.appendingPathComponent("link").path, posix = folder.appendingPathComponent("posix").path
        let copy = folder.appendingPathComponent("copy").path, name = folder.appendingPathComponent("timezone").path
        let none = folder.appendingPathComponent("none").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Europe/Berlin")
        try FileManager.default.createSymbolicLink(atPath: posix, withDestinationPath: "/usr/share/zoneinfo/posix/Europe/Paris")
        try FileManager.default.copyItem(atPath: "/usr/share/zoneinfo/Asia/Tokyo", toPath: copy)
        try "Asia/Tokyo\n".write(toFile: name, atomically: true, encoding: .utf8)
        #expect(SystemZone.fromLocaltime(at: link, namePath: name)?.identifier == "Europe/Berlin")
        #expect(SystemZone.fromLocaltime(at: posix, namePath: none)?.identifier == "Europe/Paris")
        #expect(SystemZone.fromLocaltime(at: copy, namePath: name)?.identifier == "Asia/Tokyo")
        #expect(SystemZone.fromLocaltime(at: copy, namePath: none)?.identifier == "localtime")
        #expect(SystemZone.fromLocaltime(at: name, namePath: none) == nil)
    }

    @Test func kolkataHasNoDST() throws {
        let kolkata = try zone("Asia/Kolkata")
        for instant in [0, 1_767_225_600, 1_782_864_000, 4_102_444_800] {  // 1970, 2026-01, 2026-07, 2100
            #expect(kolkata.secondsFromGMT(at: instant) == 19_800)
        }
    }

    @Test(arguments: ["../etc/passwd", "", "/etc/localtime", "Not/AZone"])
    func refusesIdentifier(_ identifier: String) {
        #expect(Zone(identifier: identifier) == nil)
    }

    @Test func refusesGarbageAndTruncatedFiles() throws {
        let realFile = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("ZoneTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not a time zone file\n".utf8).write(to: folder.appendingPathComponent("Garbage"))
        try realFile.prefix(realFile.count / 2).write(to: folder.appendingPathComponent("Truncated"))
        try realFile.write(to: folder.appendingPathComponent("Intact"))

        // The intact copy proves the folder is really being read.
        #expect(Zone(identifier: "Intact", in: folder.path) != nil)
        #expect(Zone(identifier: "Garbage", in: folder.path) == nil)
        #expect(Zone(identifier: "Truncated", in: folder.path) == nil)
    }

    /// A zone is parsed once while its file stays, and read again once a tzdata update
    /// replaces the file (atomically, as dpkg does) or rewrites it.
    @Test func aZoneFileReplacedIsReadAgain() throws {
        let berlin = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Europe/Berlin"))
        let tokyo = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Asia/Tokyo"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ZoneTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Here")
        let july = 1_782_864_000
        try berlin.write(to: file)
        #expect(Zone(identifier: "Here", in: folder.path)?.secondsFromGMT(at: july) == 7200)
        #expect(Zone(identifier: "Here", in: folder.path)?.secondsFromGMT(at: july) == 7200)
        try tokyo.write(to: file, options: .atomic)
        #expect(Zone(identifier: "Here", in: folder.path)?.secondsFromGMT(at: july) == 32400)
        try FileManager.default.removeItem(at: file)
        #expect(Zone(identifier: "Here", in: folder.path) == nil, "a zone whose file is gone is no zone")
    }

    @Test func equalityIsByIdentifier() throws {
        #expect(try zone("UTC") == Zone.utc)
        #expect(try zone("Europe/Berlin") != zone("Europe/Paris"))
        #expect(Zone.utc.secondsFromGMT(at: 1_782_864_000) == 0)
    }

    @Test func knownIdentifiersAreSortedAndIncludeCommonZones() throws {
        let identifiers = Zone.knownIdentifiers
        #expect(identifiers == identifiers.sorted())
        #expect(identifiers.contains("Europe/Berlin"))
        #expect(identifiers.contains("UTC"))
    }
}
