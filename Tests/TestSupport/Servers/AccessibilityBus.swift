import Foundation

/// A private AT-SPI bus with its registry, where a server's toolkit exports its popups'
/// buttons by label and extents (`Tests/servers/gtk-popup` reads them): nothing of the
/// machine's own accessibility bus takes part.
public final class AccessibilityBus {
    /// Its D-Bus address, for `AT_SPI_BUS_ADDRESS` (GTK) or the `AT_SPI_BUS` X property (Qt).
    public let address: String
    private var bus: Spawned?
    private var registry: Spawned?

    private static let registryd = "/usr/libexec/at-spi2-registryd"

    /// Starts the bus listening on `socket`, and its registry; returns once the registry is
    /// on the bus.
    public init(socket: URL, environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.registryd) else {
            throw MatrixServerError.couldNotStart("\(Self.registryd) is not installed (at-spi2-core)")
        }
        address = "unix:path=" + socket.path
        var environment = environment
        environment["AT_SPI_BUS_ADDRESS"] = address
        do {
            let bus = try Spawned(["dbus-daemon", "--config-file=/usr/share/defaults/at-spi2/accessibility.conf", "--nofork",
                                   "--print-address=1", "--address=\(address)"], environment: environment)
            self.bus = bus
            guard bus.stdout.wait(timeout: 60, until: { $0.contains("\n") }) else {
                throw MatrixServerError.couldNotStart("the accessibility bus did not start: \(bus.stderr.text)")
            }
            // Started here rather than activated by the bus, so that stop() can end it.
            registry = try Spawned([Self.registryd], environment: environment)
            let wait = try Spawned(["gdbus", "wait", "--address", address, "--timeout", "60", "org.a11y.atspi.Registry"],
                                   environment: environment).finish(timeout: 90)
            guard wait.status == 0 else {
                throw MatrixServerError.couldNotStart("the AT-SPI registry never appeared: \(registry?.stderr.text ?? "")")
            }
        } catch {
            stop()
            if let error = error as? MatrixServerError { throw error }
            throw MatrixServerError.couldNotStart("AT-SPI: \(error)")
        }
    }

    /// Stops the registry and the bus.
    public func stop() {
        registry?.stop()
        bus?.stop()
    }
}
