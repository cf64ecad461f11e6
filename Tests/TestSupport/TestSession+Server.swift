import Foundation

/// Making the mock notification server misbehave, and reading what it received.
extension TestSession {
    /// Replaces one of the mock server's methods with Python `code` (python-dbusmock's
    /// `AddMethod`: `args` are the arguments, `ret` the answer, `self` the object, whose
    /// `next_id` numbers notifications). Through dbus-send, which passes the code as it is.
    public func replaceServerMethod(_ name: String, inSignature: String, outSignature: String, code: String) throws {
        let result = try run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.Notifications",
                              "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock.AddMethod",
                              "string:org.freedesktop.Notifications", "string:\(name)", "string:\(inSignature)",
                              "string:\(outSignature)", "string:\(code)"])
        guard result.status == 0 else { throw TestFailure.failed("AddMethod \(name) failed: \(result)") }
    }

    /// A `Notify` that answers only after `seconds`, as a server busy drawing does.
    public func makeNotifySlow(seconds: Double) throws {
        try replaceServerMethod("Notify", inSignature: "susssasa{sv}i", outSignature: "u", code: """
            import time
            time.sleep(\(seconds))
            ret = self.next_id
            self.next_id += 1
            """)
    }

    /// The titles of the `Notify` calls a server logged to `logFile`, in order.
    public static func notifiedTitles(in logFile: URL) -> [String] {
        guard let text = try? String(contentsOf: logFile, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            // "TIME Notify "app" 0 "icon" "title" "body" […] {…} -1": the third quoted string.
            guard line.contains(" Notify \"") else { return nil }
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            return quoted.count > 5 ? String(quoted[5]) : nil
        }
    }
}
