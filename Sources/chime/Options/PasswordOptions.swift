import ArgumentParser
import Glibc
import Localization

/// Where `chime calendar add` and `chime calendar password` read a CalDAV password: typed
/// at the terminal without echo, or the first line of standard input. Never an argument,
/// which every user of the machine can read in the process list.
struct PasswordOptions: ParsableArguments {
    @Flag(name: .customLong("password-stdin"),
          help: "Read the password from the first line of standard input (the default when it is not a terminal).")
    var passwordStdin = false

    /// The password: asked on the terminal with `prompt` when standard input is one and
    /// --password-stdin was not given, else the first line of standard input. Ends the
    /// command with a usage error when there is none.
    func read(prompt: String) throws -> String {
        let typed = !passwordStdin && isatty(0) != 0 ? try PasswordPrompt.ask(prompt) : nil
        guard let password = typed ?? Self.firstLine() else {
            throw fail(localized("No password on standard input; give it as its first line, or run chime on a terminal to be asked."),
                       ExitStatus.usage)
        }
        guard !password.isEmpty else { throw fail(localized("The password is empty; nothing was sent."), ExitStatus.usage) }
        return password
    }

    /// The first line of standard input without its line end (LF or CRLF); nil at its end.
    static func firstLine() -> String? {
        guard var line = readLine(strippingNewline: true) else { return nil }
        if line.hasSuffix("\r") { line.removeLast() }
        return line
    }
}

/// A question asked on the controlling terminal (`/dev/tty`) with echo off, as `ssh` and
/// `sudo` ask for a password: the answer never shows on screen or in a scrollback.
enum PasswordPrompt {
    /// The signals that end or stop chime from the keyboard or the session; while one is
    /// pending the terminal's echo is turned back on before it takes effect.
    private static let signals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU]

    /// What was typed after `prompt`, up to Enter; nil when there is no terminal to ask on.
    /// Ctrl-C or Ctrl-Z act as usual, with echo restored first; after a stop the question
    /// is asked again.
    static func ask(_ prompt: String) throws -> String? {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        guard tcgetattr(tty, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHOE | ECHOK | ECHONL)

        // The signals are blocked and looked for between short waits, rather than caught:
        // a handler could not know the terminal to mend, and one that ran just before the
        // read would leave the read waiting with echo off.
        var blocked = sigset_t(), unblocked = sigset_t()
        sigemptyset(&blocked)
        for signal in signals { sigaddset(&blocked, signal) }
        sigprocmask(SIG_BLOCK, &blocked, &unblocked)
        defer { sigprocmask(SIG_SETMASK, &unblocked, nil) }

        write(tty, prompt)
        tcsetattr(tty, TCSAFLUSH, &quiet)
        var line: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            var ready = [pollfd(fd: tty, events: Int16(POLLIN), revents: 0)]
            let polled = poll(&ready, 1, 100)
            if polled > 0 {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(tty, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR || errno == EAGAIN { continue }
                guard count > 0 else { break }
                line += buffer[..<count]
                if line.last == UInt8(ascii: "\n") { line.removeLast(); break }
                continue
            }
            if polled < 0, errno != EINTR { break }
            var pending = sigset_t()
            sigpending(&pending)
            guard signals.contains(where: { sigismember(&pending, $0) == 1 }) else { continue }
            tcsetattr(tty, TCSAFLUSH, &saved)
            write(tty, "\n")
            // Delivered now, as if never blocked: Ctrl-C ends chime, Ctrl-Z stops it here.
            sigprocmask(SIG_SETMASK, &unblocked, nil)
            sigprocmask(SIG_BLOCK, &blocked, nil)
            // Continued (fg), or the signal is ignored: what was typed before is gone.
            line.removeAll()
            write(tty, prompt)
            tcsetattr(tty, TCSAFLUSH, &quiet)
        }
        tcsetattr(tty, TCSAFLUSH, &saved)
        // Enter was not echoed either.
        write(tty, "\n")
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { _ = Glibc.write(descriptor, $0.baseAddress, $0.count) }
    }
}
