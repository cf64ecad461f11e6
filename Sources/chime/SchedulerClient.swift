import ArgumentParser
import DBus

/// A blocking client of chimed's `io.github.chime.Scheduler1` interface.
struct SchedulerClient {
    static let busName = try! BusName("io.github.chime.Chime")
    static let path = try! ObjectPath("/io/github/chime/Chime")
    static let interface = try! InterfaceName("io.github.chime.Scheduler1")

    let connection: Connection

    static func connect() throws(DBusError) -> SchedulerClient {
        SchedulerClient(connection: try Connection.session())
    }

    /// Connects, or ends the command with a message and exit status 69.
    static func connectOrFail() throws -> SchedulerClient {
        do { return try connect() } catch { throw fail(error.message, ExitStatus.unavailable) }
    }

    /// Calls `member`, or ends the command with the error's message and exit status.
    func callOrFail(_ member: String, _ arguments: [Value]) throws -> [Value] {
        do { return try call(member, arguments) } catch { throw failure(error, calling: member, arguments) }
    }

    /// Prints what went wrong with a call to `member` and returns the exit status: a
    /// daemon of another interface version gets one sentence naming it and the fix (69),
    /// anything else the mapping of ``fail(_:)``.
    func failure(_ error: DBusError, calling member: String, _ arguments: [Value]) -> ExitCode {
        let lookups = BusLookups(connection: connection)
        if let mismatch = InterfaceMismatch.diagnose(error, member: member, arguments: arguments, lookups: lookups) {
            return fail(mismatch.sentence, ExitStatus.unavailable)
        }
        return fail(error)
    }

    /// Calls `member` on chimed (starting it through activation if needed).
    func call(_ member: String, _ arguments: [Value]) throws(DBusError) -> [Value] {
        try callForReply(member, arguments).arguments()
    }

    /// Calls `member` on chimed; the whole reply, whose sender is that chimed's unique name.
    func callForReply(_ member: String, _ arguments: [Value]) throws(DBusError) -> Message {
        let message = try Message.methodCall(
            destination: Self.busName, path: Self.path, interface: Self.interface,
            member: try MemberName(member), arguments: arguments
        )
        return try connection.call(message)
    }

    /// Subscribes to one of chimed's signals. The bus sends only the current owner's,
    /// but a signal sent straight to us bypasses the rule: a handler compares the
    /// sender with the unique name of the chimed it talks to.
    func subscribe(_ member: String, handler: @escaping (Message) -> Void) throws(DBusError) -> Subscription {
        connection.subscribe(
            MatchRule(sender: Self.busName, path: Self.path, interface: Self.interface, member: try MemberName(member)),
            handler: handler
        )
    }

    /// Calls `handler` when chimed's name loses its owner (the daemon stopped). The rule
    /// names the bus as sender, which no other client can forge.
    func whenDaemonExits(_ handler: @escaping () -> Void) throws(DBusError) -> Subscription {
        connection.subscribe(
            MatchRule(
                sender: try BusName("org.freedesktop.DBus"), interface: try InterfaceName("org.freedesktop.DBus"),
                member: try MemberName("NameOwnerChanged"), arg0: Self.busName.rawValue
            )
        ) { message in
            if let args = try? message.arguments(), args.count == 3, args[2].stringValue == "" { handler() }
        }
    }
}
