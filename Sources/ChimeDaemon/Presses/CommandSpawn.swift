import CLinux
import FoundationEssentials
import Glibc

/// Starting one command: its environment, its standard input, and `posix_spawnp` with a
/// clean slate.
enum CommandSpawn {
    /// The longest userInfo JSON put in the environment. Linux refuses to start a program
    /// with one environment string over 128 KiB (MAX_ARG_STRLEN, E2BIG); standard input
    /// has no limit, so a larger userInfo reaches the command there only.
    static let environmentLimit = 64 * 1024

    /// The daemon's environment with `CHIME_ID`, `CHIME_ACTION` and, when it fits,
    /// `CHIME_USER_INFO`, as `NAME=value` strings.
    static func environment(id: String, action: String, userInfoJSON: String) -> [String] {
        var environment = ProcessInfo.processInfo.environment
        environment["CHIME_ID"] = id
        environment["CHIME_ACTION"] = action
        environment["CHIME_USER_INFO"] = userInfoJSON.utf8.count <= environmentLimit ? userInfoJSON : nil
        return environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    }

    /// posix_spawnp with a clean slate: stdin from `stdin` (stdout and stderr from those
    /// given, else the daemon's), descriptors 3 and up closed, every signal unblocked and at
    /// its default (the daemon blocks SIGTERM, SIGINT and SIGHUP for its signalfd, and a
    /// child would inherit that mask), and a process group of its own, so a timeout stops
    /// whatever the command started too.
    static func spawn(program: String, argv: [String], environment: [String], stdin: Int32, stdout: Int32? = nil, stderr: Int32? = nil,
                      pid: inout pid_t) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
        if let stderr { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }
        clinux_spawn_file_actions_addclosefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let cArguments = argv.map { strdup($0) } + [nil]
        let cEnvironment = environment.map { strdup($0) } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        return posix_spawnp(&pid, program, &actions, &attributes, cArguments, cEnvironment)
    }

    /// The sentence for a spawn that failed with `code`.
    static func startFailure(_ program: String, _ code: Int32) -> String {
        switch code {
        case ENOENT where program.contains("/"):
            "Cannot run \(program): there is no such file."
        case ENOENT:
            "Cannot run \(program): no program of that name is in PATH (\(ProcessInfo.processInfo.environment["PATH"] ?? "unset"))."
        case EACCES:
            "Cannot run \(program): permission denied (not executable, or in a directory that cannot be searched)."
        default:
            "Cannot run \(program): \(errorText(code))."
        }
    }

    /// strerror's text for `code`.
    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code))
    }
}
