import DBus
import EventLoop
import Logging

/// Tells when the network comes back, from NetworkManager's state on the system bus, so
/// that a CalDAV calendar that could not reach its server syncs then rather than at its
/// next try. Without a system bus or NetworkManager it tells nothing, and those tries go on
/// as they were: sooner at first, then every interval.
final class NetworkReturn {
    /// NetworkManager's NM_STATE_CONNECTED_GLOBAL: the network reaches the internet.
    static let connectedGlobal = 70

    private let loop: EventLoop
    private let logger: Logger
    private var connection: Connection?
    private var service: SystemService?
    private var changes: Subscription?
    private var connecting = false
    /// NetworkManager's state as last heard; nil before it is known.
    private var state: Int?
    /// The network came back.
    var onBack: () -> Void = {}

    init(loop: EventLoop, logger: Logger) {
        (self.loop, self.logger) = (loop, logger)
    }

    /// Follows NetworkManager's state, once: the system bus is connected from the loop, so
    /// a wedged one holds nothing up.
    func start() {
        guard connection == nil, !connecting else { return }
        connecting = true
        Connection.system(on: loop, timeoutMilliseconds: 25_000, readLimits: RequestLimits.bus) { [weak self] result in
            guard let self else { return }
            self.connecting = false
            guard case .success(let connection) = result else {
                self.logger.info("No system bus: CalDAV calendars that cannot reach their servers try again on their own.")
                return
            }
            connection.onDisconnect = { [weak self] in
                self?.changes = nil
                self?.service = nil
                self?.connection = nil
            }
            self.connection = connection
            let service = SystemService(NetworkManagerClient.busName, connection: connection)
            service.onOwnerChanged = { [weak self, unowned service] owner in
                guard let self else { return }
                self.changes = nil
                self.state = nil
                guard owner != nil else { return }
                self.changes = service.subscribe(NetworkManagerClient.path, NetworkManagerClient.interface, "StateChanged") { [weak self] arguments in
                    if let value = arguments.first?.integerValue { self?.heard(Int(value)) }
                }
                service.property(NetworkManagerClient.path, NetworkManagerClient.interface, "State") { [weak self] result in
                    if case .success(let value) = result, let state = value.unwrapped.integerValue { self?.heard(Int(state)) }
                }
            }
            self.service = service
            service.follow()
        }
    }

    private func heard(_ new: Int) {
        let old = state
        state = new
        guard new >= Self.connectedGlobal, let old, old < Self.connectedGlobal else { return }
        logger.info("The network is back (NetworkManager); syncing the calendars that could not reach their servers.")
        onBack()
    }
}
