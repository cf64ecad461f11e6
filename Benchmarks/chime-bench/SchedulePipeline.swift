import ChimeAPI
import DBus
import EventLoop

/// Sends ScheduleSimple calls to chimed with a fixed number in flight.
///
/// The daemon commits everything that arrived in one loop turn in one transaction, so a
/// client that waits for each reply before sending the next measures the fsync, not
/// the daemon; keeping a window of calls outstanding is what a busy client does.
final class SchedulePipeline {
    /// Calls in flight by default: dbus-daemon's built-in limit of pending replies per
    /// connection, in force on a bus whose configuration does not raise it.
    static let defaultWindow = 128

    /// One call: when, title and body.
    typealias Request = (when: String, title: String, body: String)

    private let connection: Connection
    private let loop = EventLoop()
    private var hook: Source?
    private var disconnected = false

    init() throws(DBusError) {
        connection = try Connection.session()
        connection.attach(to: loop)
        connection.onDisconnect = { [unowned self] in
            self.disconnected = true
            self.loop.stop()
        }
    }

    deinit {
        connection.close()
    }

    /// Sends `load.count` calls built by `request(index)`, at most `load.window`
    /// unanswered, and returns once all are answered; the first error reply (or a lost
    /// bus) is thrown.
    func run(_ load: ScheduleLoad, request: @escaping (Int) -> Request) throws {
        let (count, window) = (load.count, load.window)
        var sent = 0
        var answered = 0
        var failure: BenchError?
        // Registered after the connection's own hook, so it runs after the replies read
        // in the last turn were dispatched: the window is refilled before the loop sleeps,
        // and the loop stops without sleeping once the last reply is in.
        hook = loop.prepare { [unowned self] in
            guard failure == nil, answered < count, !self.disconnected else {
                self.loop.stop()
                return
            }
            while sent < count, sent - answered < window {
                let index = sent
                let parts = request(index)
                let message: Message
                do {
                    message = try Scheduler1.scheduleSimple.call(
                        [.string(parts.when), .string(parts.title), .string(parts.body), .stringDictionary([])])
                } catch {
                    failure = BenchError("cannot build call \(index): \(error)")
                    self.loop.stop()
                    return
                }
                sent += 1
                self.connection.call(message, timeoutMilliseconds: 120_000) { result in
                    answered += 1
                    if case .failure(let error) = result, failure == nil {
                        failure = BenchError("call \(index) (\(parts.title), when '\(parts.when)') failed: \(error.name): \(error.message)")
                    }
                }
            }
        }
        defer {
            hook?.cancel()
            hook = nil
        }
        try loop.run()
        if let failure { throw failure }
        if disconnected { throw BenchError("the bus connection closed after \(answered) of \(count) replies") }
    }
}

/// How many ScheduleSimple calls a run sends, and how many it keeps in flight.
struct ScheduleLoad {
    let count: Int
    let window: Int

    init(_ options: Options) throws(UsageError) {
        count = try options.positiveInt("--count")
        window = try options.positiveInt("--window", default: SchedulePipeline.defaultWindow)
    }
}
