import ChimeCore
import DBus
import Foundation
import Testing
@testable import ChimeDaemon

/// An app in front the test answers by hand.
final class FakeFrontApp: FrontAppAsking {
    private(set) var asked: [(app: String, id: String, reply: (PresentationOptions?) -> Void)] = []

    func ask(_ app: String, id: String, alert: Alert, reply: @escaping (PresentationOptions?) -> Void) {
        asked.append((app, id, reply))
    }

    /// Answers the ask `index` with `presentation` (nil: no answer that counts).
    func answer(_ index: Int, _ presentation: PresentationOptions?) {
        asked[index].reply(presentation)
    }
}

/// What Chime still does of an occurrence, in-process: per-app settings, the app in
/// front, and the two combined, on the fake server and clock of ``DeliveryHarness``.
/// The real-process tests (AppInFrontTests, AppSettingsTests) check the same on a bus.
struct PresentationTests {
    /// A harness whose presenter asks `front` and records the badges it sets.
    final class Setup {
        let harness: DeliveryHarness
        let front = FakeFrontApp()
        private(set) var badges: [String] = []

        init(settings: [String: AppSettings] = [:], asking: Bool = true) throws {
            harness = try DeliveryHarness(apps: settings, frontApp: asking ? front : nil)
            harness.presenter.onBadge = { [unowned self] alert in self.badges.append(alert.desktopEntry ?? "") }
        }

        /// Delivers `id` for `app`, with a badge and a themed sound.
        func deliver(_ id: String, app: String? = "org.example.Front", rawSoundHint: Bool = false) {
            var alert = Alert(title: id)
            alert.desktopEntry = app
            alert.badge = 3
            alert.sound = .themed("bell")
            if rawSoundHint { alert.hints = [.custom(name: "sound-file", .string("/tmp/x.oga"))] }
            harness.presenter.deliver(id: id, kind: .scheduled, alert: alert, due: harness.time.now)
        }

        /// The hint names of Notify `index`.
        func hintNames(_ index: Int) -> [String] { harness.server.requests[index].request.hints.map(\.0) }
    }

    @Test func aNotificationForNoAppIsNotAskedAbout() throws {
        let setup = try Setup()
        setup.deliver("a", app: nil)
        #expect(setup.front.asked.isEmpty)
        #expect(setup.harness.server.titles == ["a"])
    }

    @Test func theAppIsAskedBeforeNotifyAndTheOccurrenceStaysStored() throws {
        let setup = try Setup()
        setup.deliver("a")
        #expect(setup.front.asked.map(\.app) == ["org.example.Front"])
        #expect(setup.harness.server.requests.isEmpty, "no Notify before the answer")
        #expect(try setup.harness.storedDeliveries().map(\.id) == ["a"], "durable while the app is asked")
        #expect(setup.harness.presenter.waitingCount == 0, "not sent twice")
        setup.front.answer(0, nil)
        #expect(setup.harness.server.titles == ["a"])
        #expect(setup.hintNames(0).contains("sound-name"))
        #expect(setup.badges == ["org.example.Front"])
    }

    @Test func anEmptyAnswerMeansTheAppHandledIt() throws {
        let setup = try Setup()
        setup.deliver("a")
        setup.front.answer(0, [])
        #expect(setup.harness.server.requests.isEmpty)
        #expect(setup.badges.isEmpty)
        #expect(try setup.harness.history() == ["handled a"])
        #expect(try setup.harness.storedDeliveries().isEmpty)
        #expect(setup.harness.presenter.waitingCount == 0)
    }

    @Test func anAlertOnlyAnswerShowsItSilentAndWithoutBadge() throws {
        let setup = try Setup()
        setup.deliver("a", rawSoundHint: true)
        setup.front.answer(0, [.alert])
        #expect(setup.harness.server.titles == ["a"])
        let hints = setup.hintNames(0)
        #expect(hints.contains("suppress-sound"))
        #expect(!hints.contains("sound-name") && !hints.contains("sound-file"), "\(hints)")
        #expect(setup.badges.isEmpty)
    }

    @Test func alertsOffShowsNothingAndSaysSo() throws {
        let setup = try Setup(settings: ["org.example.Front": AppSettings(alerts: false)], asking: false)
        setup.deliver("a")
        #expect(setup.harness.server.requests.isEmpty)
        #expect(try setup.harness.history() == ["withheld a"])
        #expect(setup.badges == ["org.example.Front"], "badges are still on")
        #expect(setup.harness.log.contains("has Alerts=false"))
        #expect(try setup.harness.storedDeliveries().isEmpty)
    }

    @Test func soundsOffSendsSilenceWhateverTheNotificationAsked() throws {
        let setup = try Setup(settings: ["org.example.Front": AppSettings(sounds: false)], asking: false)
        setup.deliver("a", rawSoundHint: true)
        let hints = setup.hintNames(0)
        #expect(hints.contains("suppress-sound"))
        #expect(!hints.contains("sound-name") && !hints.contains("sound-file"), "\(hints)")
        #expect(setup.badges == ["org.example.Front"])
    }

    @Test func badgesOffSetsNoBadge() throws {
        let setup = try Setup(settings: ["org.example.Front": AppSettings(badges: false)], asking: false)
        setup.deliver("a")
        #expect(setup.harness.server.titles == ["a"])
        #expect(setup.badges.isEmpty)
    }

    @Test func settingsAndTheAppMustBothAllowAThing() throws {
        let setup = try Setup(settings: ["org.example.Front": AppSettings(sounds: false)])
        setup.deliver("a")
        setup.front.answer(0, [.alert, .sound])
        #expect(setup.hintNames(0).contains("suppress-sound"))
        #expect(setup.badges.isEmpty, "the app did not ask for its badge")
    }

    @Test func anAppWhoseSettingsAllowNothingIsNotAsked() throws {
        let setup = try Setup(settings: ["org.example.Front": AppSettings(alerts: false, sounds: false, badges: false)])
        setup.deliver("a")
        #expect(setup.front.asked.isEmpty)
        #expect(try setup.harness.history() == ["withheld a"])
    }

    @Test func cancelledWhileTheAppIsAskedNothingHappens() throws {
        let setup = try Setup()
        setup.deliver("a")
        setup.harness.presenter.withdraw(ids: ["a"])
        setup.front.answer(0, nil)
        #expect(setup.harness.server.requests.isEmpty)
        #expect(setup.badges.isEmpty)
        #expect(setup.harness.presenter.alert(for: "a") == nil)
    }

    @Test func asksHoldSlotsSoASlowAppFacesABoundedNumber() throws {
        let setup = try Setup()
        for index in 0..<50 { setup.deliver("n\(index)") }
        #expect(setup.front.asked.count == Presenter.maxInFlight)
        setup.front.answer(0, [])
        #expect(setup.front.asked.count == Presenter.maxInFlight + 1, "a handled one frees its slot")
    }

    @Test func settingsAllowedByDefaultAndOffOneByOne() {
        #expect(AppSettings().allowed == .all)
        #expect(AppSettings(alerts: false).allowed == [.sound, .badge])
        let decision = OccurrenceDecision.combining(settings: AppSettings(alerts: false), app: "a", answer: [.alert])
        #expect(decision == OccurrenceDecision(presentation: [], withheld: .settings(app: "a")))
        #expect(OccurrenceDecision.combining(settings: AppSettings(), app: "a", answer: nil) == .usual)
    }

    // MARK: - The app's answer

    private func answer(_ values: [Value]) throws -> PresentationOptions? {
        let message = try Message.signal(path: ObjectPath("/t"), interface: InterfaceName("t.T"), member: MemberName("T"),
                                         arguments: values)
        return FrontApp.presentation(of: message, app: "org.example.Front", id: "a", logger: LogRecorder().logger)
    }

    @Test func answersAreReadWordByWord() throws {
        #expect(try answer([.stringArray([])]) == [])
        #expect(try answer([.stringArray(["alert", "badge"])]) == [.alert, .badge])
        #expect(try answer([.stringArray(["sound", "frobnicate"])]) == [.sound], "an unknown word among known ones is ignored")
    }

    @Test func garbageCountsAsNoAnswer() throws {
        #expect(try answer([.stringArray(["frobnicate"])]) == nil)
        #expect(try answer([.string("alert")]) == nil)
        #expect(try answer([.stringArray(["alert"]), .string("x")]) == nil)
        #expect(try answer([]) == nil)
    }
}
