import Foundation
import Testing
import TestSupport

/// The private system bus the tests of desktop services use, and the isolation from the
/// machine's own when a test has none.
@Suite struct SystemBusTests {
    @Test func fakesAnswerOnThePrivateSystemBus() throws {
        let session = try TestSession(capabilities: nil, systemBus: true)
        let system = try #require(session.systemBus)
        try system.startTemplate("logind", owning: "org.freedesktop.login1")
        // A process of the session finds the fake through DBUS_SYSTEM_BUS_ADDRESS.
        let result = try session.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.login1",
                                      "--object-path", "/org/freedesktop/login1",
                                      "--method", "org.freedesktop.login1.Manager.ListSessions"])
        #expect(result.status == 0, "\(result)")
        #expect(session.environment["DBUS_SYSTEM_BUS_ADDRESS"] == system.address)
    }

    @Test func withoutOneTheMachinesSystemBusIsOutOfReach() throws {
        let session = try TestSession(capabilities: nil)
        let result = try session.run(["gdbus", "call", "--system", "--dest", "org.freedesktop.DBus",
                                      "--object-path", "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.GetId"])
        #expect(result.status != 0, "a test without a system bus reached one: \(result)")
    }
}
