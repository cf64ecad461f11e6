import CLinux
import EventLoop
import FoundationEssentials
import Glibc

/// One run of a calendar's `PasswordCommand=`: `/bin/sh -c COMMAND`, as vdirsyncer's and
/// mbsync's are, with no input, its output read from the loop, killed at its time limit.
///
/// The password is the first line of its standard output, without the line end; of that
/// output at most ``Passwords/Limits/commandOutputBytes`` are kept, the rest read and
/// dropped, so a command that floods its output neither fills chimed's memory nor blocks
/// on a full pipe. Of its standard error only the end is kept, for the sentence when it
/// fails. No sentence names the command: its text may hold the password.
final class PasswordCommand {
    private let loop: EventLoop
    private let limits: Passwords.Limits
    private var pid: pid_t = 0
    private var pidfd: Int32 = -1
    private var exitSource: Source?
    private var deadline: Source?
    private var output: Stream?
    private var errors: Stream?
    private var timedOut = false
    private var done: ((Result<String, PasswordFailure>) -> Void)?

    /// One pipe the command writes into, read from the loop.
    private final class Stream {
        let fd: Int32
        var source: Source?
        var bytes: [UInt8] = []
        /// How many bytes came in all.
        var total = 0

        init(fd: Int32) { self.fd = fd }

        func close() {
            source?.cancel()
            source = nil
            Glibc.close(fd)
        }
    }

    /// How much one turn of the loop reads from one pipe, so that a command writing
    /// without pause cannot hold the loop.
    private static let readsPerTurn = 16
    private static let chunk = 65_536

    /// A run from `loop`, within `limits`; ``start(_:done:)`` starts it.
    init(loop: EventLoop, limits: Passwords.Limits) {
        self.loop = loop
        self.limits = limits
    }

    deinit {
        if pid > 0 && done != nil { signalGroup(SIGKILL) }
        close()
    }

    /// Starts `command`; `done` runs once from the loop with the password or why not (a
    /// command that cannot start answers from inside this call).
    func start(_ command: String, done: @escaping (Result<String, PasswordFailure>) -> Void) {
        self.done = done
        guard !command.utf8.contains(0) else { return finish(.failure(PasswordFailure("The PasswordCommand= contains a NUL character."))) }
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&out) == 0 else { return finish(.failure(Self.noPipe())) }
        guard clinux_pipe_cloexec(&err) == 0 else {
            Glibc.close(out[0])
            Glibc.close(out[1])
            return finish(.failure(Self.noPipe()))
        }
        let null = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let status = null < 0 ? errno : CommandSpawn.spawn(program: "/bin/sh", argv: ["/bin/sh", "-c", command], environment: Self.environment,
                                                           stdin: null, stdout: out[1], stderr: err[1], pid: &pid)
        // The child has its copies; ours would keep the pipes from ever reaching end of file.
        if null >= 0 { Glibc.close(null) }
        Glibc.close(out[1])
        Glibc.close(err[1])
        output = Stream(fd: out[0])
        errors = Stream(fd: err[0])
        guard status == 0 else {
            pid = 0
            let why = String(cString: strerror(status))
            return finish(.failure(PasswordFailure("The PasswordCommand= cannot be started: /bin/sh: \(why).")))
        }
        for stream in [output, errors].compactMap({ $0 }) {
            _ = fcntl(stream.fd, F_SETFL, fcntl(stream.fd, F_GETFL) | O_NONBLOCK)
            stream.source = loop.watch(fd: stream.fd, events: .readable) { [unowned self, unowned stream] _ in
                self.read(stream, turns: Self.readsPerTurn)
            }
        }
        pidfd = clinux_pidfd_open(pid)
        if pidfd >= 0 {
            exitSource = loop.watch(fd: pidfd, events: .readable) { [unowned self] _ in self.reap() }
        } else {
            // Kernels before 5.3 have no pidfd: ask a few times a second while it runs.
            pollForExit()
        }
        deadline = loop.timeout(afterMilliseconds: limits.commandMilliseconds) { [unowned self] in
            self.timedOut = true
            // SIGKILL at once: a password command has nothing to save. The whole group, so
            // that nothing the shell started outlives it.
            self.signalGroup(SIGKILL)
        }
    }

    // MARK: - Reading

    /// Reads what is there, at most `turns` chunks; keeps the start of the output and the
    /// end of the errors.
    private func read(_ stream: Stream, turns: Int) {
        var buffer = [UInt8](repeating: 0, count: Self.chunk)
        for _ in 0..<turns {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(stream.fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                // End of file, or nothing more for now (EAGAIN).
                if count == 0 { stream.source?.cancel() }
                return
            }
            stream.total += count
            if stream === output {
                let room = max(0, limits.commandOutputBytes - stream.bytes.count)
                stream.bytes += buffer.prefix(min(room, count))
            } else {
                stream.bytes += buffer.prefix(count)
                if stream.bytes.count > limits.commandErrorBytes { stream.bytes.removeFirst(stream.bytes.count - limits.commandErrorBytes) }
            }
        }
    }

    // MARK: - Ending

    private func pollForExit() {
        exitSource = loop.timeout(afterMilliseconds: 250) { [unowned self] in
            self.reap()
            if self.done != nil { self.pollForExit() }
        }
    }

    private func reap() {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
        guard result != 0 else { return }
        pid = 0
        // What it wrote before it exited is in the pipes now; a child it left running may
        // still write, so this reads only what a few turns would.
        for stream in [output, errors].compactMap({ $0 }) { read(stream, turns: Self.readsPerTurn) }
        if timedOut {
            return finish(.failure(PasswordFailure(
                "The PasswordCommand= did not finish within \(Passwords.seconds(limits.commandMilliseconds)) s and was stopped.")))
        }
        if result < 0 {
            return finish(.failure(PasswordFailure("The PasswordCommand='s exit status was lost: \(String(cString: strerror(errno))).")))
        }
        if status & 0x7F != 0 {
            let signal = status & 0x7F, said = lastErrorLine().map { ": \($0)" } ?? "."
            return finish(.failure(PasswordFailure(
                "The PasswordCommand= was ended by signal \(signal) (\(String(cString: strsignal(signal))))\(said)")))
        }
        let code = (status >> 8) & 0xFF
        guard code == 0 else {
            let said = lastErrorLine().map { ": \($0)" } ?? ", and printed no error."
            return finish(.failure(PasswordFailure("The PasswordCommand= failed with exit status \(code)\(said)")))
        }
        finish(firstLine())
    }

    /// The password: the output's first line, without its line end.
    private func firstLine() -> Result<String, PasswordFailure> {
        let bytes = output?.bytes ?? [], total = output?.total ?? 0
        guard let end = bytes.firstIndex(of: UInt8(ascii: "\n")) ?? (total <= bytes.count ? bytes.endIndex : nil) else {
            return .failure(PasswordFailure(
                "The PasswordCommand= printed more than \(limits.commandOutputBytes) bytes without a line end; "
                    + "a password is its first line."))
        }
        guard end > 0 else {
            return .failure(PasswordFailure("The PasswordCommand= printed nothing: the password is the first line of its output."))
        }
        guard let text = String(validating: bytes[..<end], as: UTF8.self) else {
            return .failure(PasswordFailure("The first line the PasswordCommand= printed is not UTF-8 text."))
        }
        return .success(text)
    }

    /// The last line of the standard error that holds anything, trimmed, and cut at 500
    /// characters for a log line.
    private func lastErrorLine() -> String? {
        let text = String(decoding: errors?.bytes ?? [], as: UTF8.self)
        guard var line = text.split(whereSeparator: \.isNewline).last(where: { !$0.allSatisfy(\.isWhitespace) }) else { return nil }
        while line.last?.isWhitespace == true { line = line.dropLast() }
        return String(line.drop(while: \.isWhitespace).prefix(500))
    }

    private func finish(_ result: Result<String, PasswordFailure>) {
        close()
        let done = self.done
        self.done = nil
        done?(result)
    }

    private func close() {
        exitSource?.cancel()
        exitSource = nil
        deadline?.cancel()
        deadline = nil
        output?.close()
        output = nil
        errors?.close()
        errors = nil
        if pidfd >= 0 { Glibc.close(pidfd) }
        pidfd = -1
    }

    /// Signals the command's process group: the shell and whatever it started.
    private func signalGroup(_ signal: Int32) {
        guard pid > 0 else { return }
        if kill(-pid, signal) != 0 { kill(pid, signal) }
    }

    // MARK: - Starting

    /// The daemon's environment: gpg and pass find their agent and GNUPGHOME through it.
    private static var environment: [String] {
        ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
    }

    private static func noPipe() -> PasswordFailure {
        PasswordFailure("The PasswordCommand= cannot be started: no pipe for its output (\(String(cString: strerror(errno)))).")
    }
}
