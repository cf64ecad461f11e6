import Foundation
import Testing
import TestSupport
@testable import Localization

/// Catalogues made with msgfmt in a temporary folder, found and checked as chimed does.
struct CatalogueSearchTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("chime-catalogues-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    /// Compiles `po` into FOLDER/LANG/LC_MESSAGES/DOMAIN.mo; returns the file.
    @discardableResult
    func catalogue(_ folder: String, _ language: String, _ domain: String, _ po: String) throws -> URL {
        let directory = root.appendingPathComponent("\(folder)/\(language)/LC_MESSAGES")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let source = root.appendingPathComponent("\(UUID().uuidString).po")
        try po.write(to: source, atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("\(domain).mo")
        let result = try Spawned(["msgfmt", "--check", "-o", file.path, source.path], environment: ProcessInfo.processInfo.environment)
            .finish(timeout: 60)
        guard result.status == 0 else { throw TestFailure.failed("msgfmt: \(result)") }
        return file
    }

    static let po = """
        msgid ""
        msgstr "Content-Type: text/plain; charset=UTF-8\\n"

        msgid "Hello"
        msgstr "Hallo"

        """

    @Test func theFirstLanguageFoundWinsThenTheFirstFolder() throws {
        try catalogue("user", "de", "app", Self.po)
        try catalogue("system", "de", "app", Self.po)
        try catalogue("system", "fr", "app", Self.po)
        let folders = ["user", "system"].map { root.appendingPathComponent($0).path }
        let french = CatalogueSearch(folders: folders, languages: ["fr_FR.UTF-8", "de"]).find("app")
        #expect(french == .found(folder: folders[1], language: "fr", file: folders[1] + "/fr/LC_MESSAGES/app.mo"))
        let german = CatalogueSearch(folders: folders, languages: ["it", "de_DE.UTF-8"]).find("app")
        #expect(german == .found(folder: folders[0], language: "de", file: folders[0] + "/de/LC_MESSAGES/app.mo"))
        #expect(CatalogueSearch(folders: folders, languages: ["it"]).find("app") == .missing)
        #expect(CatalogueSearch(folders: folders, languages: []).find("app") == .untranslated)
        #expect(CatalogueSearch(folders: folders, languages: ["de"]).find("../app") == .missing)
    }

    @Test func aDamagedCatalogueIsPassedOverForASoundOne() throws {
        let good = try catalogue("system", "de", "app", Self.po)
        let bad = root.appendingPathComponent("user/de/LC_MESSAGES/app.mo")
        try FileManager.default.createDirectory(at: bad.deletingLastPathComponent(), withIntermediateDirectories: true)
        let bytes = try Data(contentsOf: good)
        try bytes.prefix(bytes.count - 8).write(to: bad)
        let folders = ["user", "system"].map { root.appendingPathComponent($0).path }
        #expect(CatalogueSearch(folders: folders, languages: ["de"]).find("app")
                == .found(folder: folders[1], language: "de", file: good.path))
        guard case .damaged(let file, _) = CatalogueSearch(folders: [folders[0]], languages: ["de"]).find("app") else {
            Issue.record("a cut catalogue is not reported damaged")
            return
        }
        #expect(file == bad.path)
    }

    @Test func validationRefusesWhatGlibcWouldReadOutsideTheFile() throws {
        let bytes = [UInt8](try Data(contentsOf: try catalogue("x", "de", "app", Self.po)))
        #expect(CatalogueFile.validate(bytes) == nil)
        #expect(CatalogueFile.validate(Array(bytes.prefix(20))) != nil)
        #expect(CatalogueFile.validate(Array("garbage, not a catalogue at all....".utf8)) != nil)
        #expect(CatalogueFile.validate(Array(bytes.prefix(bytes.count - 3))) != nil)
        var huge = bytes
        huge[8] = 0xff; huge[9] = 0xff; huge[10] = 0xff; huge[11] = 0x0f
        #expect(CatalogueFile.validate(huge) != nil)
    }
}
