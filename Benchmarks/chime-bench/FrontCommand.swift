import ChimeAPI
import DBus
import EventLoop
import Glibc

/// `front`: what asking the app in front costs a popup. chime-bench plays the
/// notification server and an app in front (``ChimeAPI/Presenter1``, answering
/// `["alert"]`), and times `PresentNow` to `Notify` for a notification of no app, of an
/// app that is not running (the bus answers NameHasNoOwner), and of the app in front
/// (the WillPresent round trip), interleaved round by round.
struct FrontCommand {
    static let app = "io.github.chime.bench.Front"
    let count: Int

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--count"])
        count = try options.positiveInt("--count")
    }

    func run() throws {
        let loop = EventLoop()
        let connection = try Connection.session()
        connection.attach(to: loop)
        let server = try BenchServer(connection: connection)
        var asked = 0
        let registration = try connection.export([Interface(Presenter1.name, methods: [
            Method(Presenter1.willPresent, inputs: [Argument("id", "s"), Argument("notification", "a{sv}")],
                   outputs: [Argument("options", "as")]) { _ in
                asked += 1
                return [.stringArray(["alert"])]
            },
        ])], at: try ObjectPath("/" + Self.app.split(separator: ".").joined(separator: "/")))
        guard try connection.requestName(try BusName(Self.app)) == .owned else { throw BenchError("\(Self.app) is taken") }

        let kinds: [(name: String, app: String?)] = [("no app", nil), ("app not running", Self.app + ".Absent"), ("app in front", Self.app)]
        var times = Array(repeating: [Double](), count: kinds.count)
        for index in 0..<count {
            for (kind, entry) in kinds.enumerated() {
                let title = "front-\(getpid())-\(index)-\(kind)"
                var fields: [(String, Value)] = [(NotificationKey.title.rawValue, .string(title))]
                if let app = entry.app { fields.append((NotificationKey.desktopEntry.rawValue, .string(app))) }
                var failed: DBusError?
                let start = Clock.monotonic()
                connection.call(try Scheduler1.presentNow.call([.variantDictionary(fields)])) { result in
                    if case .failure(let error) = result { failed = error }
                }
                try loop.wait("Notify of \(title)") { failed != nil || server.notifiedAt[title] != nil }
                if let failed { throw BenchError("PresentNow \(title): \(failed.name): \(failed.message)") }
                times[kind].append(((server.notifiedAt[title] ?? start) - start) * 1000)
            }
        }
        guard asked == count else { throw BenchError("the app in front was asked \(asked) times for \(count) notifications") }
        let figures = zip(kinds, times).map { kind, sample in
            let p = Percentiles(sample)
            return "\(kind.name) median \(fixed(p.value(0.5), 3)) ms, p99 \(fixed(p.value(0.99), 3)) ms"
        }
        print("\(count) rounds, PresentNow to Notify: " + figures.joined(separator: "; "))
        withExtendedLifetime((server, registration)) {}
    }
}
