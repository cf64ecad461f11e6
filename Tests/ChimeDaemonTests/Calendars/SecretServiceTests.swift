import DBus
import Testing
@testable import ChimeDaemon

/// What the keyring client makes of errors, without a keyring; PasswordsTests talk to real ones.
struct SecretServiceTests {
    @Test func errorsOfTheBusBecomeSentences() {
        #expect(SecretService.failure(DBusError(name: DBusError.serviceUnknownName, message: "nobody"), "OpenSession") == .noKeyring)
        #expect(SecretService.failure(DBusError(name: DBusError.noReplyName, message: "late"), "SearchItems") == .noKeyring)
        let refused = SecretService.failure(DBusError(name: "org.example.Broken", message: "It broke."), "CreateItem")
        #expect(refused.description == "The keyring (org.freedesktop.secrets) refused CreateItem: It broke.")
        #expect(SecretService.unreadable("ReadAlias", "s", expected: "o").description.contains("'s' where the Secret Service API says 'o'"))
    }

    @Test func aLockedKeyringOrALostBusIsNamedAsSuch() {
        let locked = SecretService.failure(DBusError(name: "org.freedesktop.Secret.Error.IsLocked", message: ""), "GetSecrets")
        #expect(locked.description.hasPrefix("The keyring is locked"))
        #expect(SecretService.failure(.disconnected("Not connected to the bus."), "OpenSession").description.contains("lost its session bus"))
        let unnamed = SecretService.failure(DBusError(name: "org.example.Quiet", message: ""), "Unlock")
        #expect(unnamed.description == "The keyring (org.freedesktop.secrets) refused Unlock: org.example.Quiet")
    }
}
