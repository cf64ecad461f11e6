import ChimeAPI
import ChimeCore
import DBus
import Foundation
import Testing
@testable import ChimeDaemon

/// Apps' badges in-process: stored in the store's meta table and announced with Unity's
/// LauncherEntry signal on a bus inside the test process (the integration tests
/// check the same through the real chimed and a dbus-daemon).
struct BadgesTests {
    final class Harness {
        let delivery: DeliveryHarness
        let bus: InProcessBus
        let connection: Connection
        let badges: Badges

        init() throws {
            delivery = try DeliveryHarness()
            bus = try InProcessBus()
            connection = try Connection.bus(address: bus.address)
            badges = Badges(connection: connection, store: delivery.store, commits: delivery.commits, logger: delivery.log.logger)
        }

        /// Sets a badge and commits it; the error `then` got, if any.
        func set(_ entry: String, _ count: Int) -> DBusError? {
            var outcome: DBusError??
            badges.set(entry, count) { outcome = .some($0) }
            delivery.commits.commit()
            connection.flush()
            guard let outcome else {
                Issue.record("set did not answer once committed")
                return nil
            }
            return outcome
        }

        func count(_ entry: String) throws -> Int {
            delivery.commits.commit()
            return try badges.count(of: entry)
        }

        /// The LauncherEntry updates the bus received, after waiting for `count` of them,
        /// as (app URI, count, count-visible).
        func updates(waitingFor count: Int) -> [String] {
            connection.flush()
            return bus.waitForSignals(count).map { signal in
                guard signal.path == "/io/github/chime/Chime", signal.interface == "com.canonical.Unity.LauncherEntry",
                      signal.member == "Update", signal.arguments.count == 2,
                      let properties = signal.arguments[1].stringKeyedEntries.map({ Dictionary($0, uniquingKeysWith: { a, _ in a }) }) else {
                    return "unexpected \(signal)"
                }
                return "\(signal.arguments[0].stringValue ?? "-") count=\(properties["count"]?.unwrapped.integerValue.map(String.init) ?? "-")"
                    + " visible=\(properties["count-visible"]?.unwrapped.boolValue.map(String.init) ?? "-")"
            }
        }
    }

    func alert(badge: Int?, entry: String?) -> Alert {
        var alert = Alert(title: "Mail")
        alert.badge = badge
        alert.desktopEntry = entry
        return alert
    }

    @Test(arguments: [("org.gnome.Calendar", "org.gnome.Calendar"), ("org.gnome.Calendar.desktop", "org.gnome.Calendar"),
                      ("firefox-esr.desktop", "firefox-esr")])
    func aDesktopEntryIsNamedAsDocksKnowIt(_ text: String, _ entry: String) throws {
        #expect(try Badges.desktopEntry(text) == entry)
    }

    @Test(arguments: ["", ".desktop", "/usr/share/applications/org.gnome.Calendar.desktop", "apps/mail"])
    func whatIsNoDesktopEntryIdIsRefusedWithAnExample(_ text: String) {
        #expect(throws: DBusError.invalidArgs("desktopEntry: '\(text)' is not a desktop entry id such as org.gnome.Calendar.")) {
            try Badges.desktopEntry(text)
        }
    }

    @Test func aBadgeIsStoredAndAnnouncedToDocks() throws {
        let harness = try Harness()
        #expect(try harness.count("org.example.Mail") == 0, "never set")
        #expect(harness.set("org.example.Mail", 3) == nil)
        #expect(harness.set("org.example.Mail", 0) == nil)
        #expect(try harness.count("org.example.Mail") == 0)
        #expect(harness.set("org.example.Chat", 12) == nil)
        #expect(try harness.count("org.example.Chat") == 12)
        #expect(harness.updates(waitingFor: 3) == [
            "application://org.example.Mail.desktop count=3 visible=true",
            // Zero hides the badge rather than showing a 0.
            "application://org.example.Mail.desktop count=0 visible=false",
            "application://org.example.Chat.desktop count=12 visible=true",
        ])
    }

    /// The badge a notification carries takes effect when it shows, for its own app; one
    /// without a desktop entry has no icon to carry it.
    @Test func aNotificationsBadgeIsItsAppsWhenItShows() throws {
        let harness = try Harness()
        harness.badges.apply(of: alert(badge: 5, entry: "org.example.Mail"))
        harness.badges.apply(of: alert(badge: 7, entry: nil))
        harness.badges.apply(of: alert(badge: nil, entry: "org.example.Chat"))
        #expect(try harness.count("org.example.Mail") == 5)
        #expect(try harness.count("org.example.Chat") == 0)
        #expect(harness.updates(waitingFor: 1) == ["application://org.example.Mail.desktop count=5 visible=true"])
        #expect(harness.delivery.log.contains("A badge needs desktopEntry"))
    }

    /// Complete takes one off the app's badge, down to zero and no further; a notification
    /// that set no badge leaves it alone.
    @Test func completingLowersTheBadgeByOneDownToZero() throws {
        let harness = try Harness()
        let mail = alert(badge: 2, entry: "org.example.Mail")
        #expect(harness.set("org.example.Mail", 2) == nil)
        harness.badges.lower(of: alert(badge: nil, entry: "org.example.Mail"))
        #expect(try harness.count("org.example.Mail") == 2)
        harness.badges.lower(of: mail)
        #expect(try harness.count("org.example.Mail") == 1)
        harness.badges.lower(of: mail)
        #expect(try harness.count("org.example.Mail") == 0)
        harness.badges.lower(of: mail)
        #expect(try harness.count("org.example.Mail") == 0)
        #expect(harness.updates(waitingFor: 3).map { $0.split(separator: " ").dropFirst().joined(separator: " ") } == [
            "count=2 visible=true", "count=1 visible=true", "count=0 visible=false",
        ])
        #expect(harness.bus.waitForSignals(4, seconds: 0.2).count == 3, "nothing announced below zero")
    }
}
