import Foundation
import TestSupport
import Testing

/// Network places end to end: `chime add --on-network`, chimed, and python-dbusmock's
/// NetworkManager on a private system bus whose connections come up and go.
@Suite(.timeLimit(.minutes(5)))
struct NetworkPlaceTests {
    static let manager = "org.freedesktop.NetworkManager"
    static let managerPath = "/org/freedesktop/NetworkManager"
    static let mock = "org.freedesktop.DBus.Mock."

    /// A session with NetworkManager and one place notification, once chimed has read the
    /// (empty) list of active connections.
    func start(_ arguments: [String]) throws -> (TestSession, SystemBus) {
        let session = try TestSession(systemBus: true)
        let bus = try #require(session.systemBus)
        try bus.startTemplate("networkmanager", owning: Self.manager)
        let added = try session.run(["chime", "add", "Stand-up notes"] + arguments)
        #expect(added.status == 0, "\(added)")
        try session.waitForDaemonLog(containing: "Active networks:")
        return (session, bus)
    }

    /// A saved connection called `id`; its object path.
    func savedConnection(_ bus: SystemBus, id: String, type: String) throws -> String {
        let out = try bus.call(Self.manager, Self.managerPath + "/Settings", "org.freedesktop.NetworkManager.Settings.AddConnection",
                               "{'connection': {'id': <'\(id)'>, 'type': <'\(type)'>, 'uuid': <'\(UUID().uuidString)'>}}")
        return try #require(out.split(separator: "'").dropFirst().first.map(String.init))
    }

    func quoted(_ output: String) throws -> String {
        try #require(output.split(separator: "'").dropFirst().first.map(String.init))
    }

    @Test func connectingToAConnectionByItsIdFires() throws {
        let (session, bus) = try start(["--on-network", "Office LAN"])
        let device = try quoted(try bus.call(Self.manager, Self.managerPath, Self.mock + "AddEthernetDevice", "eth0", "eth0", "uint32 100"))
        let connection = try savedConnection(bus, id: "Office LAN", type: "802-3-ethernet")
        try bus.call(Self.manager, Self.managerPath, Self.mock + "AddActiveConnection", "['\(device)']", connection, "/", "lan", "uint32 2")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Stand-up notes'>"))
        #expect(try session.run(["chime", "list"]).stdout.contains("Nothing scheduled."))
    }

    @Test func joiningAWiFiBySSIDFiresAndLeavingFiresWithOnExit() throws {
        let (session, bus) = try start(["--on-network", "Office Wi-Fi", "--on-exit"])
        let device = try quoted(try bus.call(Self.manager, Self.managerPath, Self.mock + "AddWiFiDevice", "wlan0", "wlan0", "uint32 100"))
        let accessPoint = try quoted(try bus.call(Self.manager, Self.managerPath, Self.mock + "AddAccessPoint", device, "ap1",
                                                  "Office Wi-Fi", "00:11:22:33:44:55", "uint32 2", "uint32 2412", "uint32 54000",
                                                  "byte 80", "uint32 0"))
        // The connection's id is not the SSID: only the access point says "Office Wi-Fi".
        let connection = try savedConnection(bus, id: "work", type: "802-11-wireless")
        let active = try quoted(try bus.call(Self.manager, Self.managerPath, Self.mock + "AddActiveConnection", "['\(device)']",
                                             connection, accessPoint, "wifi", "uint32 2"))
        try session.waitForDaemonLog(containing: "Active networks: Office Wi-Fi, work")
        #expect(try session.notifyCalls().isEmpty)
        try bus.call(Self.manager, Self.managerPath, Self.mock + "RemoveActiveConnection", device, active)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Stand-up notes'>"))
        try session.waitForDaemonLog(containing: "Left the network Office Wi-Fi.")
    }

    @Test func withoutNetworkManagerItWaitsUntilItAppears() throws {
        let session = try TestSession(systemBus: true)
        let added = try session.run(["chime", "add", "Stand-up notes", "--on-network", "Office LAN"])
        #expect(added.stderr.contains("waiting for a location source"), "\(added)")
        #expect(try session.run(["chime", "list"]).stdout.contains("waiting: on entering network Office LAN"))
        try #require(session.systemBus).startTemplate("networkmanager", owning: Self.manager)
        try session.waitForDaemonLog(containing: "Active networks:")
        let list = try session.run(["chime", "list"])
        #expect(list.stdout.contains("on entering network Office LAN"), "\(list)")
    }
}
