import Foundation
import Testing
import TestSupport

/// The template of Chime's messages and its translations, as committed.
struct TranslationFileTests {
    @Test func theCommittedTemplateIsWhatTheSourcesGive() throws {
        let generated = try Spawned([packageRoot.appendingPathComponent("scripts/pot.sh").path],
                                    environment: ProcessInfo.processInfo.environment).finish(timeout: 120)
        #expect(generated.status == 0, "\(generated)")
        let committed = try String(contentsOf: packageRoot.appendingPathComponent("po/chime.pot"), encoding: .utf8)
        #expect(generated.stdout == committed, "po/chime.pot is out of date: run make pot, then msgmerge --update po/de.po po/chime.pot")
    }

    @Test func theGermanTranslationIsCompleteAndItsFormatsMatch() throws {
        let po = packageRoot.appendingPathComponent("po/de.po").path
        let environment = ProcessInfo.processInfo.environment
        // msgcmp counts untranslated and fuzzy messages as missing.
        let complete = try Spawned(["msgcmp", po, packageRoot.appendingPathComponent("po/chime.pot").path],
                                   environment: environment).finish(timeout: 60)
        #expect(complete.status == 0, "\(complete)")
        let checked = try Spawned(["msgfmt", "--check", "--output-file=/dev/null", po], environment: environment).finish(timeout: 60)
        #expect(checked.status == 0, "\(checked)")
    }
}
