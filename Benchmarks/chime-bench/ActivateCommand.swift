import DBus
import Glibc

/// `activate`: how long the first call to a service that is not running takes to be
/// answered, the bus starting the service on the way (D-Bus activation).
///
/// Each round stops the service (SIGTERM to the name's owner) and waits until the bus
/// has released the name, then times one `org.freedesktop.DBus.Peer.Ping`: libdbus
/// answers it from the service's own connection once the service dispatches, so for
/// chimed it comes after the store is open and the loop runs. The same call works on
/// any libdbus or GDBus service, which is what lets peers be timed alike.
///
/// Several names (`--name A,B`; a bus name has no comma) take turns, one activation
/// each per round, so that a machine busier for a while weighs on all of them alike and
/// their ratio is not the load of the moment each was timed in.
final class ActivateCommand {
    static let bus = try! BusName("org.freedesktop.DBus")
    static let busPath = try! ObjectPath("/org/freedesktop/DBus")
    static let busInterface = try! InterfaceName("org.freedesktop.DBus")
    static let peerInterface = try! InterfaceName("org.freedesktop.DBus.Peer")

    let names: [BusName]
    let count: Int

    init(_ options: Options) throws(UsageError) {
        try options.check(allowed: ["--name", "--count"])
        var names: [BusName] = []
        for text in try options.string("--name").split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard let name = try? BusName(text) else { throw UsageError(message: "'\(text)' is not a bus name") }
            names.append(name)
        }
        self.names = names
        count = try options.positiveInt("--count")
    }

    func run() throws {
        let connection = try Connection.session()
        var samples = [[Double]](repeating: [], count: names.count)
        for _ in 0..<count {
            for (index, name) in names.enumerated() {
                try stopService(name, connection)
                let ping = try Message.methodCall(destination: name, path: try ObjectPath("/"), interface: Self.peerInterface,
                                                  member: try MemberName("Ping"), arguments: [])
                let start = Clock.monotonic()
                _ = try connection.call(ping, timeoutMilliseconds: 30_000)
                samples[index].append((Clock.monotonic() - start) * 1000)
            }
        }
        let text = { (value: Double) in String(Double(Int(value * 100)) / 100) }
        for (name, sample) in zip(names, samples) {
            try stopService(name, connection)
            let percentiles = Percentiles(sample)
            print("activate \(name.rawValue): median \(text(percentiles.value(0.5))) ms, min \(text(percentiles.value(0))) ms, max \(text(percentiles.value(1))) ms over \(count)")
        }
    }

    /// Stops the name's owner, if any, and returns once the bus has no owner for it.
    private func stopService(_ name: BusName, _ connection: Connection) throws {
        guard try hasOwner(name, connection) else { return }
        let pidCall = try Message.methodCall(destination: Self.bus, path: Self.busPath, interface: Self.busInterface,
                                             member: try MemberName("GetConnectionUnixProcessID"), arguments: [.string(name.rawValue)])
        guard let pid = try connection.call(pidCall).arguments().first?.integerValue, pid > 0 else {
            throw BenchError("the bus gave no pid for \(name.rawValue)")
        }
        kill(pid_t(pid), SIGTERM)
        // The bus announces the release as NameOwnerChanged; asking every millisecond is
        // simpler here and costs nothing that is timed.
        for _ in 0..<10_000 {
            if try !hasOwner(name, connection) { return }
            usleep(1000)
        }
        throw BenchError("\(name.rawValue) still has an owner 10 s after SIGTERM to pid \(pid)")
    }

    private func hasOwner(_ name: BusName, _ connection: Connection) throws -> Bool {
        let call = try Message.methodCall(destination: Self.bus, path: Self.busPath, interface: Self.busInterface,
                                          member: try MemberName("NameHasOwner"), arguments: [.string(name.rawValue)])
        return try connection.call(call).arguments().first?.boolValue == true
    }
}
