import ChimeAPI
import ChimeCore
import DBus
import EventLoop
import Foundation
@testable import ChimeDaemon

/// chimed's parts as ``Daemon/assemble(_:)`` builds them, in the test process: its
/// method table exported on a bus inside the process (``InProcessBus``), answering a
/// second connection as `gdbus` would be answered, on a fake notification server and
/// clock and a real store in a scratch folder.
final class DaemonHarness {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chime-daemon-\(UUID().uuidString)")
    let time = FakeTime()
    let server = FakeServer()
    let log = LogRecorder()
    let loop = EventLoop()
    let bus: InProcessBus
    /// chimed's connection, and a caller's.
    let connection: Connection
    let caller: Connection
    let store: Store
    let commits: CommitQueue
    let settings: Settings
    let parts: DaemonParts
    private let registration: Registration

    /// `config` is the text of the user's config file, read as chimed reads it at start.
    init(config: String? = nil) throws {
        bus = try InProcessBus()
        connection = try Connection.bus(address: bus.address)
        _ = try connection.requestName(ChimeBus.name)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try Store(directory: directory)
        commits = CommitQueue(store: store, loop: loop)
        let configURL = directory.appendingPathComponent("config")
        if let config { try Data(config.utf8).write(to: configURL) }
        settings = Settings(path: configURL.path, logger: log.logger)
        if config != nil { settings.take(Config.load(from: configURL)) }
        let time = time
        parts = Daemon.assemble(DaemonParts.Inputs(
            connection: connection, server: server, store: store, commits: commits, loop: loop, time: time, settings: settings,
            commands: CommandRunner(loop: loop, logger: log.logger), logger: log.logger, now: { time.now }))
        registration = try connection.export([parts.methods.interface], at: ChimeBus.path)
        connection.attach(to: loop)
        try parts.presenter.start()
        try parts.fireTimer.start()
        caller = try Connection.bus(address: bus.address)
        caller.attach(to: loop)
    }

    deinit {
        registration.cancel()
        caller.close()
        connection.close()
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Calls `member` of ``ChimeAPI/Scheduler1`` from the caller's connection and turns
    /// the loop until chimed answered (after its commit, for a change).
    func call(_ member: String, _ arguments: [Value] = []) throws -> Result<[Value], DBusError> {
        let message = try Message.methodCall(destination: ChimeBus.name, path: ChimeBus.path, interface: Scheduler1.name,
                                             member: try MemberName(member), arguments: arguments)
        var answer: Result<Message, DBusError>?
        caller.call(message, timeoutMilliseconds: 10_000) { answer = $0 }
        let deadline = Date().addingTimeInterval(15)
        while answer == nil, Date() < deadline { try loop.runOnce(timeoutMilliseconds: 20) }
        switch answer {
        case .success(let reply)?:
            if let error = reply.error { return .failure(error) }
            return .success(try reply.arguments())
        case .failure(let error)?:
            return .failure(error)
        case nil:
            throw InProcessBus.Failure("\(member) was not answered")
        }
    }

    /// The answer's values, or the error thrown.
    func values(_ member: String, _ arguments: [Value] = []) throws -> [Value] {
        try call(member, arguments).get()
    }

    /// The error `member` answered with; a failure when it succeeded.
    func error(_ member: String, _ arguments: [Value] = []) throws -> DBusError {
        switch try call(member, arguments) {
        case .success(let values): throw InProcessBus.Failure("\(member) succeeded with \(values)")
        case .failure(let error): return error
        }
    }

    /// Moves the clock by `seconds` (firing what comes due), then turns the loop until
    /// what that staged is written.
    func advance(_ seconds: TimeInterval) throws {
        time.advance(seconds)
        try loop.runOnce(timeoutMilliseconds: 0)
    }

    /// The `a{sv}` of a notification's description as a dictionary.
    static func entries(_ value: Value) -> [String: Value] {
        Dictionary((value.stringKeyedEntries ?? []).map { ($0.0, $0.1.unwrapped) }, uniquingKeysWith: { first, _ in first })
    }
}
