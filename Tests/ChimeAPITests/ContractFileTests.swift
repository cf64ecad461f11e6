import ChimeAPI
import DBus
import Foundation
import Testing

/// dbus/io.github.chime.Scheduler1.xml is what ChimeAPI declares.
struct ContractFileTests {
    static let committed: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("dbus/io.github.chime.Scheduler1.xml"), encoding: .utf8)) ?? ""
    }()

    @Test func committedFileIsTheGeneratedOne() {
        // After a change to Sources/ChimeAPI, run `make api-xml` and commit the file.
        #expect(Self.committed == ContractFile.text)
    }

    @Test func everyMethodAndSignalIsInTheFileWithItsSummary() {
        let text = ContractFile.text
        for method in Scheduler1.methods {
            #expect(text.contains("<method name=\"\(method.name)\">"), "\(method.name)")
            #expect(!method.summary.isEmpty && !method.summary.contains("--"), "\(method.name)")
        }
        for signal in Scheduler1.signals {
            #expect(text.contains("<signal name=\"\(signal.name)\">"), "\(signal.name)")
            #expect(!signal.summary.isEmpty && !signal.summary.contains("--"), "\(signal.name)")
        }
    }

    @Test func linesKeepToTheWidth() {
        let long = ContractFile.text.split(separator: "\n").filter { $0.count > 92 && !$0.contains("<arg ") }
        #expect(long.isEmpty, "\(long)")
    }

    @Test func methodNamesAreUniqueAndFound() {
        let names = Scheduler1.methods.map(\.name.rawValue)
        #expect(Set(names).count == names.count)
        #expect(Scheduler1.method(named: "ScheduleSimple")?.inputSignature == "sssa{ss}")
        #expect(Scheduler1.method(named: "NoSuchMethod") == nil)
    }

    @Test func everyDocumentedKeyIsInTheFile() {
        // Lines are folded where a key and its summary may be broken apart.
        let text = ContractFile.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let keys = NotificationKey.allCases.map(\.rawValue) + StatusKey.allCases.map(\.rawValue) + HistoryKey.allCases.map(\.rawValue)
        for key in keys { #expect(text.contains(key + " ("), "\(key)") }
    }
}
