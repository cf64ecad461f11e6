import DBus
import EventLoop
import Logging

/// A client of the freedesktop Secret Service (`org.freedesktop.secrets`: GNOME Keyring,
/// KeePassXC, KWallet), on a bus connection driven by the loop.
///
/// Every call is asynchronous and bounded (``Passwords/Limits/callMilliseconds``); a prompt
/// the keyring shows (to unlock a collection, say) waits for its `Completed` signal at most
/// ``Passwords/Limits/promptMilliseconds``, then is dismissed. Calls go to the well-known
/// name; a prompt's signal is taken only from the unique name that handed out the prompt.
final class SecretService {
    /// The Secret Service's well-known name on the session bus.
    static let busName = try! BusName("org.freedesktop.secrets")
    /// The object of `org.freedesktop.Secret.Service`.
    static let servicePath = try! ObjectPath("/org/freedesktop/secrets")
    /// A prompt's signal, with whether it was dismissed and its result.
    static let completed = try! MemberName("Completed")
    /// The Secret Service API's "no object": no prompt needed, no collection of that alias.
    static let none = try! ObjectPath("/")

    /// The interfaces of the Secret Service API.
    enum Interface: String {
        case service = "org.freedesktop.Secret.Service"
        case collection = "org.freedesktop.Secret.Collection"
        case item = "org.freedesktop.Secret.Item"
        case session = "org.freedesktop.Secret.Session"
        case prompt = "org.freedesktop.Secret.Prompt"

        /// The validated name.
        var name: InterfaceName { InterfaceName(rawValue: rawValue)! }
    }

    /// What `SearchItems` found.
    struct Found {
        /// Items whose secrets can be read now.
        var unlocked: [ObjectPath]
        /// Items that must be unlocked first.
        var locked: [ObjectPath]
    }

    /// A reply's arguments, and who sent it (the keyring's unique name).
    private struct Reply {
        var arguments: [Value]
        var sender: String?
    }

    /// One prompt waited for: its signal's subscription and its time limit.
    private final class PromptWait {
        var subscription: Subscription?
        var deadline: Source?
        var finished = false
    }

    private let connection: Connection
    private let loop: EventLoop
    private let logger: Logger
    private let limits: Passwords.Limits

    /// Asks the keyring over `connection`, attached to `loop`.
    init(connection: Connection, loop: EventLoop, logger: Logger, limits: Passwords.Limits) {
        self.connection = connection
        self.loop = loop
        self.logger = logger
        self.limits = limits
    }

    // MARK: - Sessions

    /// Opens a session, runs `body` with it, closes it and hands `done` what `body` gave.
    func withSession<T>(_ done: @escaping (Result<T, PasswordFailure>) -> Void,
                        body: @escaping (ObjectPath, @escaping (Result<T, PasswordFailure>) -> Void) -> Void) {
        // "plain": the secret crosses the session bus unencrypted. That bus is the user's
        // own (only their processes and root may connect, and those could as well read
        // chimed's memory), so the Secret Service's Diffie-Hellman transport would guard
        // against no one here.
        call(Self.servicePath, .service, "OpenSession", [.string("plain"), .variant(.string(""))], expecting: "vo") {
            [weak self] result in
            switch result {
            case .failure(let failure):
                done(.failure(failure))
            case .success(let reply):
                guard case .objectPath(let session) = reply.arguments[1] else { return done(.failure(Self.unreadable("OpenSession"))) }
                body(session) { outcome in
                    self?.call(session, .session, "Close", [], expecting: "") { _ in }
                    done(outcome)
                }
            }
        }
    }

    // MARK: - Items

    /// The items whose attributes include all of `attributes`, in every collection.
    func searchItems(_ attributes: [(String, String)], done: @escaping (Result<Found, PasswordFailure>) -> Void) {
        call(Self.servicePath, .service, "SearchItems", [.stringDictionary(attributes)], expecting: "aoao") { result in
            done(result.map { reply in Found(unlocked: paths(reply.arguments[0]), locked: paths(reply.arguments[1])) })
        }
    }

    /// The secret of `item` as text, carried by `session`.
    func password(of item: ObjectPath, in session: ObjectPath, done: @escaping (Result<String?, PasswordFailure>) -> Void) {
        call(Self.servicePath, .service, "GetSecrets", [.array(element: "o", [.objectPath(item)]), .objectPath(session)],
             expecting: "a{o(oayays)}") { result in
            done(result.flatMap { reply in
                let entry = reply.arguments[0].dictionaryEntries?.first { $0.key == .objectPath(item) }
                guard let fields = entry?.value.structureFields, fields.count == 4, let bytes = fields[2].byteValues else {
                    return .failure(PasswordFailure(
                        "The keyring did not hand out the password it holds for this calendar: unlock the keyring and try again."))
                }
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    return .failure(PasswordFailure(
                        "The password stored in the keyring for this calendar is not UTF-8 text; store it again (chime calendar add)."))
                }
                return .success(text)
            })
        }
    }

    /// The collection of the `default` alias, where new items go; nil when there is none.
    func defaultCollection(done: @escaping (Result<ObjectPath?, PasswordFailure>) -> Void) {
        call(Self.servicePath, .service, "ReadAlias", [.string("default")], expecting: "o") { result in
            done(result.map { reply in
                guard case .objectPath(let path) = reply.arguments[0], path != Self.none else { return nil }
                return path
            })
        }
    }

    /// Creates an item in `collection`, replacing one with the same attributes.
    func createItem(in collection: ObjectPath, label: String, attributes: [(String, String)], secret: [UInt8],
                    session: ObjectPath, done: @escaping (Result<Void, PasswordFailure>) -> Void) {
        let properties = Value.variantDictionary([
            ("org.freedesktop.Secret.Item.Label", .string(label)),
            ("org.freedesktop.Secret.Item.Attributes", .stringDictionary(attributes)),
        ])
        // The content type libsecret gives a password, so libsecret reads it back as text.
        let value = Value.structure([.objectPath(session), .array(element: "y", []), .array(element: "y", secret.map(Value.byte)),
                                     .string("text/plain")])
        call(collection, .collection, "CreateItem", [properties, value, .bool(true)], expecting: "oo") { [weak self] result in
            switch result {
            case .failure(let failure):
                done(.failure(failure))
            case .success(let reply):
                self?.answer(prompt: reply, at: 1, done: done)
            }
        }
    }

    /// Deletes `items`, one after the other; one already gone counts as deleted.
    func delete(_ items: [ObjectPath], done: @escaping (Result<Void, PasswordFailure>) -> Void) {
        guard let item = items.first else { return done(.success(())) }
        call(item, .item, "Delete", [], expecting: "o") { [weak self] result in
            let next: (Result<Void, PasswordFailure>) -> Void = { outcome in
                guard case .success = outcome else { return done(outcome) }
                self?.delete(Array(items.dropFirst()), done: done)
            }
            switch result {
            case .failure(let failure) where failure == Self.noSuchObject:
                next(.success(()))
            case .failure(let failure):
                done(.failure(failure))
            case .success(let reply):
                self?.answer(prompt: reply, at: 0, done: next)
            }
        }
    }

    // MARK: - Unlocking and prompts

    /// Unlocks `objects` (items or collections), through the keyring's prompt when it
    /// shows one; `why` says in the log what the prompt is for. The answer lists what
    /// the keyring says it unlocked.
    func unlock(_ objects: [ObjectPath], why: String, done: @escaping (Result<[ObjectPath], PasswordFailure>) -> Void) {
        call(Self.servicePath, .service, "Unlock", [.array(element: "o", objects.map(Value.objectPath))], expecting: "aoo") {
            [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let failure):
                done(.failure(failure))
            case .success(let reply):
                guard case .objectPath(let prompt) = reply.arguments[1], prompt != Self.none else {
                    return done(.success(paths(reply.arguments[0])))
                }
                let limit = Passwords.seconds(self.limits.promptMilliseconds)
                self.logger.notice("The keyring is locked; waiting up to \(limit) s for its unlock prompt to be answered (\(why)).")
                self.complete(prompt, from: reply.sender) { outcome in done(outcome.map(paths)) }
            }
        }
    }

    /// Finishes a call whose argument `index` is a prompt: at once when it is `/`, else
    /// once the prompt completes.
    private func answer(prompt reply: Reply, at index: Int, done: @escaping (Result<Void, PasswordFailure>) -> Void) {
        guard case .objectPath(let prompt) = reply.arguments[index], prompt != Self.none else { return done(.success(())) }
        logger.notice("The keyring shows a prompt; waiting up to \(Passwords.seconds(limits.promptMilliseconds)) s for it to be answered.")
        complete(prompt, from: reply.sender) { outcome in done(outcome.map { _ in () }) }
    }

    /// Shows `prompt` and waits for its `Completed` signal: the result it carries, or why not.
    private func complete(_ prompt: ObjectPath, from sender: String?, done: @escaping (Result<Value, PasswordFailure>) -> Void) {
        let wait = PromptWait()
        let finish: (Result<Value, PasswordFailure>) -> Void = { result in
            guard !wait.finished else { return }
            wait.finished = true
            wait.subscription?.cancel()
            wait.subscription = nil
            wait.deadline?.cancel()
            wait.deadline = nil
            done(result)
        }
        // Subscribed before Prompt is called, so the signal cannot come first; only from the
        // keyring that made the prompt, since any client may send a signal to chimed.
        let owner = sender.flatMap(BusName.init(rawValue:)) ?? Self.busName
        let rule = MatchRule(sender: owner, path: prompt, interface: Interface.prompt.name, member: Self.completed)
        wait.subscription = connection.subscribe(rule) { message in
            guard let args = try? message.arguments(), args.count == 2, let dismissed = args[0].boolValue else { return }
            finish(dismissed ? .failure(Self.dismissed) : .success(args[1].unwrapped))
        }
        wait.deadline = loop.timeout(afterMilliseconds: limits.promptMilliseconds) { [weak self, limits] in
            // Left open, the prompt would ask the person for something nobody waits for.
            self?.call(prompt, .prompt, "Dismiss", [], expecting: "") { _ in }
            finish(.failure(PasswordFailure(
                "The keyring's prompt went unanswered for \(Passwords.seconds(limits.promptMilliseconds)) s: unlock the keyring and try "
                    + "again, or give the calendar a PasswordCommand=.")))
        }
        // No parent window: chimed has none.
        call(prompt, .prompt, "Prompt", [.string("")], expecting: "") { result in
            if case .failure(let failure) = result { finish(.failure(failure)) }
        }
    }

    // MARK: - Calls

    /// Calls `member` of the keyring; the reply's arguments when their signature is
    /// `signature`, else why not, as a sentence.
    private func call(_ path: ObjectPath, _ interface: Interface, _ member: String, _ arguments: [Value], expecting signature: String,
                      reply: @escaping (Result<Reply, PasswordFailure>) -> Void) {
        let message: Message
        do {
            message = try Message.methodCall(destination: Self.busName, path: path, interface: interface.name,
                                             member: try MemberName(member), arguments: arguments)
        } catch {
            return reply(.failure(PasswordFailure("The keyring cannot be asked: \(error)")))
        }
        connection.call(message, timeoutMilliseconds: limits.callMilliseconds) { result in
            switch result {
            case .failure(let error):
                reply(.failure(Self.failure(error, member)))
            case .success(let answer):
                guard answer.signature == signature, let values = try? answer.arguments() else {
                    return reply(.failure(Self.unreadable(member, answer.signature, expected: signature)))
                }
                reply(.success(Reply(arguments: values, sender: answer.sender)))
            }
        }
    }

    // MARK: - Sentences

    /// The person dismissed the keyring's prompt.
    static let dismissed = PasswordFailure(
        "The keyring's prompt was dismissed, so the keyring stayed locked: unlock it and try again, or give the calendar a "
            + "PasswordCommand=.")

    /// The item went between finding it and using it.
    static let noSuchObject = PasswordFailure("The keyring no longer has the item it found.")

    /// The sentence for an error the keyring (or the bus) answered `member` with.
    static func failure(_ error: DBusError, _ member: String) -> PasswordFailure {
        switch error.name {
        case DBusError.serviceUnknownName, DBusError.nameHasNoOwnerName, DBusError.noReplyName,
             "org.freedesktop.DBus.Error.TimedOut", "org.freedesktop.DBus.Error.TimeoutExpired":
            return .noKeyring
        case "org.freedesktop.DBus.Error.Disconnected":
            return PasswordFailure("chimed has lost its session bus, so the keyring cannot be asked.")
        case "org.freedesktop.Secret.Error.IsLocked":
            return PasswordFailure("The keyring is locked: unlock it and try again, or give the calendar a PasswordCommand=.")
        case "org.freedesktop.Secret.Error.NoSuchObject":
            return noSuchObject
        default:
            let why = error.message.isEmpty ? error.name : error.message
            return PasswordFailure("The keyring (org.freedesktop.secrets) refused \(member): \(why)")
        }
    }

    /// The sentence for an answer to `member` that is not what the Secret Service API says.
    static func unreadable(_ member: String, _ signature: String? = nil, expected: String? = nil) -> PasswordFailure {
        guard let signature, let expected, signature != expected else {
            return PasswordFailure("The keyring's answer to \(member) could not be read.")
        }
        return PasswordFailure("The keyring answered \(member) with '\(signature)' where the Secret Service API says '\(expected)'.")
    }
}

/// The object paths of an `ao` value (a variant's unwrapped); nothing else counts.
private func paths(_ value: Value) -> [ObjectPath] {
    (value.unwrapped.arrayElements ?? []).compactMap { if case .objectPath(let path) = $0 { path } else { nil } }
}

extension Value {
    /// The entries of any dictionary, in wire order.
    fileprivate var dictionaryEntries: [DictionaryEntry]? {
        if case .dictionary(_, _, let entries) = self { return entries }
        return nil
    }

    /// The bytes of an `ay` array.
    fileprivate var byteValues: [UInt8]? {
        guard case .array(let element, let elements) = self, element == "y" else { return nil }
        return elements.compactMap { if case .byte(let byte) = $0 { byte } else { nil } }
    }
}
