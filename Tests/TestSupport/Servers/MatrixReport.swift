import Foundation

/// One server's run of the matrix scenario, as `make test-servers` tabulates it
/// (scripts/server-matrix.py): one JSON object per line in the report file.
public struct MatrixRun: Codable {
    /// One step of the scenario.
    public struct Step: Codable {
        public let name: String
        /// "pass", "fail" or "n/a".
        public var result: String
        /// What the server did differently, or why the step failed or did not apply.
        public var note: String
    }

    public let server: String
    /// From GetServerInformation: name, vendor, version, spec version.
    public var information: [String] = []
    public var capabilities: [String] = []
    /// The Debian package of the server and its version, as dpkg has it ("mako-notifier
    /// 1.7.1-1"): some servers report no real version of their own (mako says 0.0.0).
    public var package = ""
    /// "pass", "fail" or "could not start".
    public var result = "pass"
    public var reason = ""
    public var steps: [Step] = []

    public init(server: String) { self.server = server }

    /// Runs one step: "pass" unless `body` throws or returns a note starting "n/a:".
    /// A failure is recorded and returned, so the scenario goes on to the next step.
    public mutating func step(_ name: String, _ body: () throws -> String) -> Error? {
        do {
            let note = try body()
            if note.hasPrefix("n/a: ") {
                steps.append(Step(name: name, result: "n/a", note: String(note.dropFirst(5))))
            } else {
                steps.append(Step(name: name, result: "pass", note: note))
            }
            return nil
        } catch {
            // A timeout's message carries all the output it waited on: the start tells what failed.
            steps.append(Step(name: name, result: "fail", note: String("\(error)".prefix(400))))
            result = "fail"
            return error
        }
    }

    /// Appends this run to the report file: `CHIME_MATRIX_REPORT`, or
    /// `.build/server-matrix.jsonl` in the package.
    public func record() {
        let path = ProcessInfo.processInfo.environment["CHIME_MATRIX_REPORT"].flatMap { $0.isEmpty ? nil : $0 }
            ?? packageRoot.appendingPathComponent(".build/server-matrix.jsonl").path
        guard var line = try? JSONEncoder().encode(self) else { return }
        line.append(0x0A)
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: line)
    }
}
