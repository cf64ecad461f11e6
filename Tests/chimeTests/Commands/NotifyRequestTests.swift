import Testing
@testable import chime

/// The fast path for `chime notify` must read every command line exactly as
/// ArgumentParser does, or leave it to ArgumentParser.
struct NotifyRequestTests {
    static let agreed: [[String]] = [
        ["T"],
        ["T", "B"],
        ["-u", "critical", "-A", "done=Done", "T", "B"],
        ["--urgency=low", "--app-name", "Kettle", "-i", "dialog-information", "T"],
        ["-c", "email.arrived", "-t", "5000", "--expire-time=-1", "T"],
        ["-h", "int:value:42", "--hint", "string:x:a:b", "-A", "Open", "--action=later=Later", "T"],
        ["-e", "-w", "-p", "T", "B"],
        ["T", "-u", "low", "B", "--print-id"],
        ["-u", "low", "-u", "critical", "T"],
        ["--transient", "--wait", "--print-id", "Title with spaces", "Body\nwith lines"],
        ["--json", "T"],
        ["-w", "--json", "-A", "done=Done", "T", "B"],
        ["-p", "-r", "3kq9xw2m", "-h", "int:value:60", "Copying"],
        ["--replace-id=42", "T"],
    ]

    static let leftToArgumentParser: [[String]] = [
        [], ["--help"], ["-?"], ["-wp", "T"], ["--no-such", "T"], ["-u", "urgent", "T"], ["-t", "soon", "T"],
        ["-h", "int:value", "T"], ["-A", "=Done", "T"], ["T", "B", "C"], ["--", "-T"], ["-u"], ["--wait=yes", "T"], ["--json=yes", "T"],
        ["-A", "-x", "T"], ["--sound", "bell", "T"], ["-r", "T"],
    ]

    @Test(arguments: agreed)
    func fastPathAgreesWithArgumentParser(arguments: [String]) throws {
        let fast = try #require(NotifyRequest(fastParsing: arguments))
        let parsed = try Notify.parse(arguments)
        #expect(fast == parsed.request)
        #expect(fast.options.map { "\($0.0)=\($0.1)" } == parsed.request.options.map { "\($0.0)=\($0.1)" })
    }

    @Test(arguments: leftToArgumentParser)
    func doubtfulCommandLinesGoToArgumentParser(arguments: [String]) {
        #expect(NotifyRequest(fastParsing: arguments) == nil)
    }

    @Test func optionsForTheDaemon() throws {
        let request = try #require(NotifyRequest(fastParsing: ["-u", "critical", "-h", "int:value:42", "-A", "Open", "-A", "done=Done", "-e", "T"]))
        #expect(request.options.map { "\($0.0)=\($0.1)" } == [
            "urgency=critical", "hint.value=int:42", "hint.transient=boolean:true", "action.0=Open", "action.done=Done",
        ])
    }
}
