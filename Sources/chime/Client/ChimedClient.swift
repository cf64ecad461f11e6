import ArgumentParser
import ChimeAPI
import DBus

/// A blocking client of chimed's `Scheduler1` interface: a typed function per method
/// the commands use (see ChimedClient+Methods.swift), all built on ``call(_:_:)``.
struct ChimedClient {
    let connection: Connection

    /// Connects to the session bus as `chime doctor` finds it, so that without one every
    /// command says what doctor says.
    static func connect() throws(DBusError) -> ChimedClient {
        var diagnosis = Diagnosis()
        guard let connection = diagnosis.connect() else {
            throw .disconnected(diagnosis.problems.first?.text ?? "No session bus.")
        }
        return ChimedClient(connection: connection)
    }

    /// Connects, or ends the command with a message and exit status 69.
    static func connectOrFail() throws -> ChimedClient {
        do { return try connect() } catch { throw fail(error.message, ExitStatus.unavailable) }
    }

    /// How long a call that waits on a calendar server may take: chimed answers
    /// DiscoverCalendars, AddCalendar, SyncCalendar and SetCalendarPassword once the server
    /// has, each of its requests bounded by a minute, and a sync may make several. A chimed
    /// that stops is told at once by the bus, so the wait is never longer than the server's.
    static let serverTimeoutMilliseconds: Int32 = 900_000

    /// Calls `method`, or ends the command with the error's message and exit status;
    /// `id` is the notification the call names, for a "no such id" in the session's language.
    func callOrFail(_ method: MethodDeclaration, _ arguments: [Value], about id: String? = nil,
                    timeoutMilliseconds: Int32 = 25_000) throws -> [Value] {
        do { return try call(method, arguments, timeoutMilliseconds: timeoutMilliseconds) } catch {
            throw failure(error, calling: method, about: id)
        }
    }

    /// Prints what went wrong with a call to `method` and returns the exit status: a
    /// daemon of another interface version gets one sentence naming it and the fix (69),
    /// anything else the mapping of ``fail(_:)``, a refused value named by the option typed.
    func failure(_ error: DBusError, calling method: MethodDeclaration, about id: String? = nil) -> ExitCode {
        if let mismatch = InterfaceMismatch.diagnose(error, calling: method, lookups: BusLookups(connection: connection)) {
            return fail(mismatch.localizedSentence, ExitStatus.unavailable)
        }
        return fail(error, about: id)
    }

    /// Calls `method` on chimed (starting it through activation if needed).
    func call(_ method: MethodDeclaration, _ arguments: [Value], timeoutMilliseconds: Int32 = 25_000) throws(DBusError) -> [Value] {
        try callForReply(method, arguments, timeoutMilliseconds: timeoutMilliseconds).arguments()
    }

    /// Calls `method` on chimed; the whole reply, whose sender is that chimed's unique name.
    func callForReply(_ method: MethodDeclaration, _ arguments: [Value], timeoutMilliseconds: Int32 = 25_000) throws(DBusError) -> Message {
        try connection.call(try method.call(arguments), timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Subscribes to one of chimed's signals. The bus sends only the current owner's,
    /// but a signal sent straight to us bypasses the rule: a handler compares the
    /// sender with the unique name of the chimed it talks to.
    func subscribe(_ signal: SignalDeclaration, handler: @escaping (Message) -> Void) -> Subscription {
        connection.subscribe(signal.matchRule, handler: handler)
    }

    /// Calls `handler` when chimed's name loses its owner (the daemon stopped). The rule
    /// names the bus as sender, which no other client can forge.
    func whenDaemonExits(_ handler: @escaping () -> Void) throws(DBusError) -> Subscription {
        connection.subscribe(
            MatchRule(
                sender: try BusName("org.freedesktop.DBus"), interface: try InterfaceName("org.freedesktop.DBus"),
                member: try MemberName("NameOwnerChanged"), arg0: ChimeBus.name.rawValue
            )
        ) { message in
            if let args = try? message.arguments(), args.count == 3, args[2].stringValue == "" { handler() }
        }
    }
}
