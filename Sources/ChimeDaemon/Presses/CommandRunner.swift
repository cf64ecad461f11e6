import ChimeCore
import CLinux
import EventLoop
import FoundationEssentials
import Glibc
import Logging

/// How a command run for a button ended.
enum CommandOutcome: Equatable, Sendable {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it (not one Chime sent for its timeout).
    case signalled(Int32)
    /// It ran past its timeout and was stopped.
    case timedOut
    /// It never ran: the sentence says why.
    case failedToStart(String)
}

/// Runs the `Exec=` commands of buttons, from the daemon's loop, without ever waiting.
///
/// A command is an argv list run without a shell (`posix_spawnp`: a name without `/` is
/// looked up in `PATH`). It gets the daemon's environment plus `CHIME_ID`,
/// `CHIME_ACTION` and `CHIME_USER_INFO` (the userInfo as JSON; left out when it is over
/// 64 KiB), and on standard input `{"id":…,"action":…,"userInfo":{…}}` and a newline,
/// then end of file. Its standard
/// output and error are the daemon's (the journal). It is reaped through a pidfd
/// watched by the loop, so neither a SIGCHLD handler nor a blocking wait is needed, and
/// a command that hangs delays nothing else: after its timeout its process group gets
/// SIGTERM, and SIGKILL 2 seconds later.
///
/// Any bus client can press a button (`InvokeAction`), as fast as it likes: at most
/// ``maxRunning`` commands run at once, the next ``maxWaiting`` wait for one of them to
/// end, and a press past that is refused with a log line (its command never runs).
///
/// With a ``SessionPlacement``, a command gets the session's umask and a scope of its own.
final class CommandRunner {
    private let loop: EventLoop
    private let logger: Logger
    /// Where started commands go; shared with the app launcher.
    let placement: SessionPlacement?
    /// How many commands run at once.
    let maxRunning: Int
    /// How many wait for a free place; a press past that is refused.
    let maxWaiting: Int
    private var running: [pid_t: RunningCommand] = [:]
    private var waiting: [CommandRequest] = []
    private var nextDeliveryID = 0
    private var deliveries: [Int: Source] = [:]

    /// How long a command has after SIGTERM before SIGKILL.
    static let killDelayMilliseconds = 2_000
    /// The default of ``maxRunning``: more than a person presses, few enough that a
    /// flood of presses cannot exhaust the user's processes.
    static let defaultMaxRunning = 8
    /// The default of ``maxWaiting``.
    static let defaultMaxWaiting = 64

    init(loop: EventLoop, logger: Logger, placement: SessionPlacement? = nil,
         maxRunning: Int = CommandRunner.defaultMaxRunning, maxWaiting: Int = CommandRunner.defaultMaxWaiting) {
        self.loop = loop
        self.logger = logger
        self.placement = placement
        self.maxRunning = max(1, maxRunning)
        self.maxWaiting = max(0, maxWaiting)
    }

    /// The commands started and not yet reaped.
    var runningCount: Int { running.count }

    /// The commands waiting for a free place.
    var waitingCount: Int { waiting.count }

    /// Starts `argv` for button `action` of notification `id` (or queues it while
    /// ``maxRunning`` commands run) and returns at once; `completion` runs later from the
    /// loop (never from inside this call) with the outcome.
    func run(
        argv: [String], timeout: TimeInterval, id: String, action: String, userInfoJSON: String,
        completion: ((CommandOutcome) -> Void)? = nil
    ) {
        let request = CommandRequest(argv: argv, timeout: timeout, userInfoJSON: userInfoJSON,
                                     context: CommandContext(id: id, action: action, program: argv.first ?? "", completion: completion))
        guard running.count >= maxRunning else { return start(request) }
        guard waiting.count < maxWaiting else {
            return failed(request.context, "\(running.count) commands are running and \(waiting.count) are waiting, "
                          + "the most Chime allows; this one is not run.")
        }
        waiting.append(request)
        logger.info("Action '\(action)' on \(id): \(running.count) commands are running; \(request.context.program) waits for one to end.")
    }

    /// Starts the commands that waited, as places free up.
    private func startWaiting() {
        while running.count < maxRunning, !waiting.isEmpty {
            start(waiting.removeFirst())
        }
    }

    private func start(_ request: CommandRequest) {
        let (argv, timeout, userInfoJSON, context) = (request.argv, request.timeout, request.userInfoJSON, request.context)
        let (id, action) = (context.id, context.action)
        guard let program = argv.first, !program.isEmpty else {
            return failed(context, "The command is empty.")
        }
        // A C string ends at the first NUL: such an argument would reach the program cut short.
        let environment = CommandSpawn.environment(id: id, action: action, userInfoJSON: userInfoJSON)
        if argv.contains(where: { $0.utf8.contains(0) }) || environment.contains(where: { $0.utf8.contains(0) }) {
            return failed(context, "An argument, the id, the action or the userInfo contains a NUL character.")
        }

        var ends: [Int32] = [-1, -1]
        guard clinux_pipe_cloexec(&ends) == 0 else {
            return failed(context, "No pipe for its standard input: \(CommandSpawn.errorText(errno)).")
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        // Only the daemon's end is non-blocking: the command reads an ordinary blocking stdin.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let input = Array(Self.input(id: id, action: action, userInfoJSON: userInfoJSON).utf8) + [UInt8(ascii: "\n")]
        // The JSON is small: it fits the pipe buffer (64 KiB) and is written whole before
        // the command starts. Anything longer waits for the pipe to drain, from the loop.
        let written = Descriptor.write(input, from: 0, to: writeEnd)

        var pid: pid_t = 0
        let spawn = { CommandSpawn.spawn(program: program, argv: argv, environment: environment, stdin: readEnd, pid: &pid) }
        let status = placement?.withSessionUmask(spawn) ?? spawn()
        guard status == 0 else {
            close(readEnd)
            close(writeEnd)
            return failed(context, CommandSpawn.startFailure(program, status))
        }
        let child = RunningCommand(pid: pid, context: context)
        running[pid] = child
        logger.debug("Action '\(action)' on \(id): started \(program) as process \(pid).")
        placement?.moveToOwnScope(pid: pid, applicationID: program.split(separator: "/").last.map(String.init) ?? program,
                                  description: "\(program), run by Chime for '\(action)' on notification \(id)")
        if userInfoJSON.utf8.count > CommandSpawn.environmentLimit {
            logger.notice("Action '\(action)' on \(id): the userInfo is too large for CHIME_USER_INFO; \(program) has it on standard input only.")
        }

        if written < input.count {
            // The read end stays open here until the input is written, so a command that
            // exits without reading it cannot raise SIGPIPE in the daemon.
            child.input = (readEnd, writeEnd, input, written)
            child.inputSource = loop.watch(fd: writeEnd, events: .writable) { [unowned self, unowned child] _ in
                self.writeMore(child)
            }
        } else {
            close(readEnd)
            close(writeEnd)
        }

        let pidfd = clinux_pidfd_open(pid)
        if pidfd >= 0 {
            child.pidfd = pidfd
            child.exitSource = loop.watch(fd: pidfd, events: .readable) { [unowned self, unowned child] _ in
                self.reap(child)
            }
        } else {
            // Kernels before 5.3 have no pidfd: ask a few times a second while it runs.
            logger.debug("pidfd_open failed (\(CommandSpawn.errorText(errno))); polling for process \(pid) instead.")
            pollForExit(child)
        }
        // Clamped: a year is "never" here, and Int(_:) traps on an infinite interval.
        let milliseconds = Int((min(max(0, timeout), 366 * 86_400) * 1000).rounded(.up))
        child.deadline = loop.timeout(afterMilliseconds: milliseconds) { [unowned self, unowned child] in
            self.timedOut(child, after: timeout)
        }
    }

    // MARK: - Input

    /// The JSON on a command's standard input.
    static func input(id: String, action: String, userInfoJSON: String) -> String {
        let quoted = { (text: String) in NotificationEncoding.jsonText(.string(text)) }
        return "{\"id\":\(quoted(id)),\"action\":\(quoted(action)),\"userInfo\":\(userInfoJSON)}"
    }

    /// A userInfo dictionary as a JSON object, keys sorted; numbers that JSON cannot
    /// write (NaN, infinities) become null. The same writer as the bus's JSON forms.
    static func userInfoJSON(_ info: [String: UserInfoValue]) -> String {
        NotificationEncoding.jsonText(NotificationEncoding.userInfo(info))
    }

    private func writeMore(_ child: RunningCommand) {
        guard let input = child.input else { return }
        let written = Descriptor.write(input.bytes, from: input.written, to: input.writeEnd)
        child.input?.written = written
        if written >= input.bytes.count { child.closeInput() }
    }

    // MARK: - Failing to start

    private func failed(_ context: CommandContext, _ sentence: String) {
        logger.error("Action '\(context.action)' on \(context.id): \(sentence)")
        deliver(context, .failedToStart(sentence))
    }

    /// Calls the completion from the loop, so callers never see it re-entrantly.
    private func deliver(_ context: CommandContext, _ outcome: CommandOutcome) {
        guard let completion = context.completion else { return }
        nextDeliveryID += 1
        let token = nextDeliveryID
        deliveries[token] = loop.timeout(afterMilliseconds: 0) { [unowned self] in
            self.deliveries[token] = nil
            completion(outcome)
        }
    }

    // MARK: - Ending

    private func reap(_ child: RunningCommand) {
        var status: Int32 = 0
        var result: pid_t
        repeat { result = waitpid(child.pid, &status, WNOHANG) } while result < 0 && errno == EINTR
        if result == 0 { return }
        let outcome: CommandOutcome
        if result < 0 {
            // Only another waitpid in this process could have taken it: the status is lost.
            logger.error("Process \(child.pid) (\(child.context.program)) was reaped elsewhere: \(CommandSpawn.errorText(errno)).")
            outcome = child.timedOut ? .timedOut : .exited(-1)
        } else if status & 0x7F == 0 {
            outcome = child.timedOut ? .timedOut : .exited((status >> 8) & 0xFF)
        } else {
            outcome = child.timedOut ? .timedOut : .signalled(status & 0x7F)
        }
        finish(child, outcome)
    }

    private func pollForExit(_ child: RunningCommand) {
        // Held strongly: reaping drops the runner's reference while this still runs.
        // The cycle through exitSource ends when the child is closed.
        child.exitSource = loop.timeout(afterMilliseconds: 250) { [unowned self, child] in
            self.reap(child)
            if self.running[child.pid] === child { self.pollForExit(child) }
        }
    }

    private func timedOut(_ child: RunningCommand, after timeout: TimeInterval) {
        child.timedOut = true
        logger.warning("Action '\(child.context.action)' on \(child.context.id): \(child.context.program) still runs after its timeout of \(timeout) s; sending SIGTERM.")
        child.signal(SIGTERM)
        child.deadline = loop.timeout(afterMilliseconds: Self.killDelayMilliseconds) { [unowned self, unowned child] in
            self.logger.warning("Action '\(child.context.action)' on \(child.context.id): \(child.context.program) ignored SIGTERM; sending SIGKILL.")
            child.signal(SIGKILL)
        }
    }

    private func finish(_ child: RunningCommand, _ outcome: CommandOutcome) {
        running[child.pid] = nil
        child.close()
        let context = child.context
        let prefix = "Action '\(context.action)' on \(context.id): \(context.program)"
        switch outcome {
        case .exited(0):
            logger.info("\(prefix) exited with status 0.")
        case .exited(let code):
            logger.warning("\(prefix) exited with status \(code).")
        case .signalled(let signal):
            logger.warning("\(prefix) was ended by signal \(signal) (\(String(cString: strsignal(signal)))).")
        case .timedOut:
            logger.warning("\(prefix) was stopped: it ran past its timeout.")
        case .failedToStart(let sentence):
            logger.error("\(prefix): \(sentence)")
        }
        context.completion?(outcome)
        startWaiting()
    }
}
