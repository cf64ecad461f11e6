import DBus
import EventLoop
import Logging

/// Why a password could not be had: a sentence a user can act on.
///
/// No sentence ever holds the password, nor the text of a `PasswordCommand=`, which may
/// hold one (`echo hunter2`).
struct PasswordFailure: Error, CustomStringConvertible, Equatable, Sendable {
    /// The sentence.
    var description: String

    /// A failure saying `description`.
    init(_ description: String) {
        self.description = description
    }

    /// Nobody owns `org.freedesktop.secrets`, or its owner does not answer.
    static let noKeyring = PasswordFailure(
        "No keyring answers on the session bus (org.freedesktop.secrets): start GNOME Keyring or KeePassXC, "
            + "or give the calendar a PasswordCommand=.")
}

/// Where the passwords of CalDAV calendars come from: the user's keyring (the freedesktop
/// Secret Service, as libsecret stores them) or a `PasswordCommand=`.
///
/// Everything runs from chimed's loop and answers later, never from inside the call:
/// libsecret's blocking calls would hold the loop for as long as a locked keyring's prompt
/// waits for the person, and its asynchronous ones need a GLib main loop chimed does not
/// run. So the keyring is asked over chimed's own session-bus connection, each call within
/// ``Limits/callMilliseconds`` and an unlock prompt within ``Limits/promptMilliseconds``.
///
/// Items are libsecret's: the attributes `xdg:schema` = ``schema``, `url` and `user`, so
/// `secret-tool lookup xdg:schema io.github.chime.CalDAV url URL user USER` finds what
/// chimed stored, and chimed finds what `secret-tool store` stored with them.
final class Passwords {
    /// The time and size limits of the keyring's calls and of a `PasswordCommand=`.
    struct Limits: Sendable {
        /// How long one call to the keyring may go unanswered: libdbus's own default, far
        /// more than a keyring that is there takes.
        var callMilliseconds: Int32 = 25_000
        /// How long an unlock prompt may wait for the person before it is dismissed.
        var promptMilliseconds = 60_000
        /// How long a `PasswordCommand=` may run before it is killed: long enough to type
        /// a GnuPG passphrase into pinentry.
        var commandMilliseconds = 30_000
        /// How much of a `PasswordCommand=`'s output is kept: a password is one short line.
        var commandOutputBytes = 4_096
        /// How much of the end of a `PasswordCommand=`'s standard error is kept, for the
        /// sentence when it fails.
        var commandErrorBytes = 4_096

        /// The limits chimed runs with.
        static let standard = Limits()
    }

    /// The `xdg:schema` attribute of Chime's items, as libsecret names a schema.
    static let schema = "io.github.chime.CalDAV"

    private let loop: EventLoop
    private let logger: Logger
    private let limits: Limits
    private let keyring: SecretService
    /// The `PasswordCommand=` runs not yet ended.
    private var commands: [ObjectIdentifier: PasswordCommand] = [:]
    /// Answers waiting for the loop, so that none is given from inside the call that asked.
    private var deliveries: [Int: Source] = [:]
    private var nextDelivery = 0

    /// Asks the keyring on `bus`, chimed's session-bus connection, attached to `loop`.
    init(bus: Connection, loop: EventLoop, logger: Logger, limits: Limits = .standard) {
        self.loop = loop
        self.logger = logger
        self.limits = limits
        keyring = SecretService(connection: bus, loop: loop, logger: logger, limits: limits)
    }

    /// The lookup attributes of the item for `user` at `url`.
    static func attributes(url: String, user: String) -> [(String, String)] {
        [("xdg:schema", schema), ("url", url), ("user", user)]
    }

    /// The label of a stored item, as the keyring's own window lists it.
    static func label(url: String, user: String) -> String {
        "Chime: \(user) at \(host(of: url))"
    }

    /// The host (and port, when given) of `url`; the whole text when it has none.
    static func host(of url: String) -> String {
        var rest = Substring(url)
        if let scheme = rest.firstRange(of: "://") { rest = rest[scheme.upperBound...] }
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let host = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        return host.isEmpty ? url : String(host)
    }

    /// `milliseconds` as seconds for a sentence: "60", or "1.5".
    static func seconds(_ milliseconds: Int) -> String {
        milliseconds % 1000 == 0 ? "\(milliseconds / 1000)" : "\(Double(milliseconds) / 1000)"
    }

    // MARK: - The keyring

    /// The password stored for user at url in the Secret Service; nil when none is stored.
    func lookup(url: String, user: String, done: @escaping (Result<String?, PasswordFailure>) -> Void) {
        logger.debug("Asking the keyring for the password of \(user) at \(url).")
        let answer = later(done)
        let attributes = Self.attributes(url: url, user: user)
        keyring.withSession(answer) { [keyring] session, finish in
            keyring.searchItems(attributes) { result in
                switch result {
                case .failure(let failure):
                    finish(.failure(failure))
                case .success(let found):
                    if let item = found.unlocked.first {
                        keyring.password(of: item, in: session, done: finish)
                    } else if let item = found.locked.first {
                        keyring.unlock([item], why: "the password of \(user) at \(url)") { unlocked in
                            guard case .failure(let failure) = unlocked else {
                                return keyring.password(of: item, in: session, done: finish)
                            }
                            finish(.failure(failure))
                        }
                    } else {
                        finish(.success(nil))
                    }
                }
            }
        }
    }

    /// Stores (or replaces) it, labelled "Chime: USER at HOST", in the default collection.
    func store(url: String, user: String, password: String, done: @escaping (Result<Void, PasswordFailure>) -> Void) {
        logger.debug("Storing the password of \(user) at \(url) in the keyring.")
        let answer = later(done)
        let attributes = Self.attributes(url: url, user: user), label = Self.label(url: url, user: user)
        keyring.withSession(answer) { [keyring] session, finish in
            keyring.defaultCollection { result in
                switch result {
                case .failure(let failure):
                    finish(.failure(failure))
                case .success(nil):
                    finish(.failure(PasswordFailure(
                        "The keyring has no default collection to store the password in: create one (GNOME Keyring's "
                            + "\"Login\", say, in Passwords and Keys), or give the calendar a PasswordCommand= instead.")))
                case .success(let collection?):
                    // Unlocking an unlocked collection answers at once; a locked one shows its prompt.
                    keyring.unlock([collection], why: "storing the password of \(user) at \(url)") { unlocked in
                        if case .failure(let failure) = unlocked { return finish(.failure(failure)) }
                        keyring.createItem(in: collection, label: label, attributes: attributes, secret: Array(password.utf8),
                                           session: session, done: finish)
                    }
                }
            }
        }
    }

    /// Removes it (chime calendar remove); no error when there was none.
    func delete(url: String, user: String, done: @escaping (Result<Void, PasswordFailure>) -> Void) {
        logger.debug("Removing the password of \(user) at \(url) from the keyring.")
        let answer = later(done)
        let attributes = Self.attributes(url: url, user: user)
        keyring.searchItems(attributes) { [keyring] result in
            switch result {
            case .failure(let failure):
                answer(.failure(failure))
            case .success(let found) where found.locked.isEmpty:
                keyring.delete(found.unlocked, done: answer)
            case .success(let found):
                // A locked item cannot be deleted: gnome-keyring answers IsLocked.
                keyring.unlock(found.locked, why: "removing the password of \(user) at \(url)") { unlocked in
                    if case .failure(let failure) = unlocked { return answer(.failure(failure)) }
                    keyring.delete(found.unlocked + found.locked, done: answer)
                }
            }
        }
    }

    // MARK: - PasswordCommand=

    /// The first line of what `command` prints (run with /bin/sh -c, as vdirsyncer's and mbsync's PasswordCommand are: e.g. `pass show dav`).
    func run(command: String, done: @escaping (Result<String, PasswordFailure>) -> Void) {
        let answer = later(done)
        let run = PasswordCommand(loop: loop, limits: limits)
        let id = ObjectIdentifier(run)
        commands[id] = run
        run.start(command) { [weak self] result in
            self?.commands[id] = nil
            if case .failure(let failure) = result { self?.logger.debug("PasswordCommand= gave no password: \(failure)") }
            answer(result)
        }
    }

    /// How many `PasswordCommand=` runs have not ended yet.
    var runningCommands: Int { commands.count }

    // MARK: - Answering

    /// `done`, called from the loop on its next turn: no caller sees its answer while it
    /// is still inside the call that asked.
    private func later<T>(_ done: @escaping (Result<T, PasswordFailure>) -> Void) -> (Result<T, PasswordFailure>) -> Void {
        { [weak self] result in
            guard let self else { return done(result) }
            self.nextDelivery += 1
            let token = self.nextDelivery
            self.deliveries[token] = self.loop.timeout(afterMilliseconds: 0) { [weak self] in
                self?.deliveries[token] = nil
                done(result)
            }
        }
    }
}
