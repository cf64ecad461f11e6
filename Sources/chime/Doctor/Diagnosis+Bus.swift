import DBus
import Glibc
import Localization

// MARK: - Finding the session bus

extension Diagnosis {
    /// Connects as libdbus would, but without X11 autolaunch, which would start a new
    /// bus of its own instead of finding the session's.
    mutating func connect() -> Connection? {
        let runtime = environment("XDG_RUNTIME_DIR")
        if let address = environment("DBUS_SESSION_BUS_ADDRESS") {
            switch connect(to: address, from: "DBUS_SESSION_BUS_ADDRESS") {
            case .success(let connection):
                return connection
            case .failure(let error):
                problems.append(Note {
                    runtime.map {
                        localized("No session bus answers at %1$s, the address in DBUS_SESSION_BUS_ADDRESS (%2$s); the session it belonged to may have ended: log in again, or set DBUS_SESSION_BUS_ADDRESS to the running session's bus (usually unix:path=%3$s/bus).",
                                  address, error.message.withoutFullStop, $0)
                    } ?? localized("No session bus answers at %1$s, the address in DBUS_SESSION_BUS_ADDRESS (%2$s); the session it belonged to may have ended: log in again, or set DBUS_SESSION_BUS_ADDRESS to the running session's bus.",
                                   address, error.message.withoutFullStop)
                })
                return nil
            }
        }
        guard let runtime, let socket = Connection.userBusSocket(in: runtime) else {
            problems.append(Note {
                runtime.map {
                    localized("No session bus: DBUS_SESSION_BUS_ADDRESS is not set and there is no bus socket at $XDG_RUNTIME_DIR/bus (%1$s/bus), so chime cannot reach chimed; run chime inside your desktop session, or export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus where a per-user bus runs (Debian's dbus-user-session).", $0)
                } ?? localized("No session bus: DBUS_SESSION_BUS_ADDRESS is not set and XDG_RUNTIME_DIR is not set either, so chime cannot reach chimed; run chime inside your desktop session, or export DBUS_SESSION_BUS_ADDRESS=unix:path=$XDG_RUNTIME_DIR/bus where a per-user bus runs (Debian's dbus-user-session).")
            })
            return nil
        }
        let address = "unix:path=" + Connection.escapedAddressValue(socket)
        switch connect(to: address, from: "XDG_RUNTIME_DIR") {
        case .success(let connection):
            warnings.append(Note {
                localized("DBUS_SESSION_BUS_ADDRESS is not set; chime and chimed find the per-user bus at %1$s by themselves, but programs that only read the variable do not: run inside your desktop session, or export DBUS_SESSION_BUS_ADDRESS=%2$s.",
                          socket, address)
            })
            return connection
        case .failure(let error):
            problems.append(Note {
                localized("No session bus: DBUS_SESSION_BUS_ADDRESS is not set and the bus socket %1$s does not answer (%2$s); run chime inside your desktop session.",
                          socket, error.message.withoutFullStop)
            })
            return nil
        }
    }

    /// Connects to `address`, found through `source`, and notes the bus as found.
    private mutating func connect(to address: String, from source: String) -> Result<Connection, DBusError> {
        bus.address = address
        bus.source = source
        do {
            let connection = try Connection.bus(address: address)
            bus.connected = true
            bus.uniqueName = connection.uniqueName
            return .success(connection)
        } catch {
            return .failure(error)
        }
    }
}
