import EventLoop
import FoundationEssentials
import Glibc

/// A command to start, kept while it waits for a free place.
struct CommandRequest {
    let argv: [String]
    let timeout: TimeInterval
    let userInfoJSON: String
    let context: CommandContext
}

/// What a run is for: named in its log lines, told how it ended.
struct CommandContext {
    let id: String
    let action: String
    let program: String
    let completion: ((CommandOutcome) -> Void)?
}

/// One started command, until it is reaped: its process, the loop sources that follow
/// it, and the input still to be written.
final class RunningCommand {
    let pid: pid_t
    let context: CommandContext
    var pidfd: Int32 = -1
    var exitSource: Source?
    var deadline: Source?
    var input: (readEnd: Int32, writeEnd: Int32, bytes: [UInt8], written: Int)?
    var inputSource: Source?
    var timedOut = false

    init(pid: pid_t, context: CommandContext) {
        self.pid = pid
        self.context = context
    }

    /// Signals its process group; the command alone if it has left that group.
    func signal(_ number: Int32) {
        if kill(-pid, number) != 0 { kill(pid, number) }
    }

    func closeInput() {
        inputSource?.cancel()
        inputSource = nil
        if let input {
            Glibc.close(input.readEnd)
            Glibc.close(input.writeEnd)
        }
        input = nil
    }

    func close() {
        closeInput()
        exitSource?.cancel()
        exitSource = nil
        deadline?.cancel()
        deadline = nil
        if pidfd >= 0 { Glibc.close(pidfd) }
        pidfd = -1
    }
}
