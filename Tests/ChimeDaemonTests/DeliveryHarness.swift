import ChimeCore
import EventLoop
import Foundation
@testable import ChimeDaemon

/// A clock and timers moved by hand: time passes only when a test says so.
final class FakeTime: Timekeeper {
    private final class Token {}
    private var timers: [(due: UInt64, order: Int, token: Weak, handler: () -> Void)] = []
    private var counter = 0
    let alarm = FakeAlarm()

    /// Wall-clock time at monotonic 0; `now` is counted from it in whole nanoseconds, so
    /// that ten steps of 0.1 s land exactly on a due time, as the kernel's would.
    private let origin: Date
    private(set) var monotonic: UInt64 = 0

    init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        origin = now
    }

    var now: Date { origin.addingTimeInterval(Double(monotonic) / 1e9) }

    func after(milliseconds: Int, _ handler: @escaping () -> Void) -> AnyObject {
        let token = Token()
        counter += 1
        timers.append((monotonic + UInt64(max(0, milliseconds)) * 1_000_000, counter, Weak(token), handler))
        return token
    }

    func makeAlarm(_ handler: @escaping (WallClockEvent) -> Void) throws -> Alarm {
        alarm.handler = handler
        return alarm
    }

    /// Timeouts still armed (their token alive).
    var armedTimeouts: Int { timers.count { $0.token.object != nil } }

    /// Moves both clocks by `seconds`, running every timeout and the alarm as they come due, in order.
    func advance(_ seconds: TimeInterval) {
        let end = monotonic + UInt64((seconds * 1e9).rounded())
        while true {
            timers.removeAll { $0.token.object == nil }
            var candidates: [(due: UInt64, order: Int, run: () -> Void)] = timers.filter { $0.due <= end }.map { timer in
                (timer.due, timer.order, { [unowned self] in
                    self.timers.removeAll { $0.order == timer.order }
                    timer.handler()
                })
            }
            if let at = alarm.armedAt {
                let due = UInt64((max(0, at.timeIntervalSince(origin)) * 1e9).rounded())
                if due <= end {
                    candidates.append((due, Int.min, { [alarm] in
                        alarm.armedAt = nil
                        alarm.handler?(.expired)
                    }))
                }
            }
            guard let next = candidates.min(by: { ($0.due, $0.order) < ($1.due, $1.order) }) else { break }
            step(to: next.due)
            next.run()
        }
        step(to: end)
    }

    private func step(to target: UInt64) {
        monotonic = max(monotonic, target)
    }

    private struct Weak {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }
}

/// The fire timer's alarm, seen from the test.
final class FakeAlarm: Alarm {
    var handler: ((WallClockEvent) -> Void)?
    var armedAt: Date?
    /// When set, arming fails as the kernel may (EINVAL).
    var refuses = false

    struct Refused: Error {}

    func arm(at date: Date) throws {
        if refuses { throw Refused() }
        armedAt = date
    }

    func disarm() { armedAt = nil }
}

/// A notification server the test answers by hand.
final class FakeServer: NotificationPoster {
    var capabilities: Set<String>? = ["body", "actions", "sound"]
    var isReady = true
    var onEvent: (NotificationClient.Event) -> Void = { _ in }
    var server: String? = "bus-1 :1.7"
    var owner: String? { server.map { String($0.split(separator: " ").last ?? "") } }
    /// What a server with a history of closed notifications (dunst) would answer.
    var closedHistory: Set<UInt32>?
    /// Every Notify, in order, and whether it was answered yet.
    private(set) var requests: [(request: NotifyArguments, reply: (Result<UInt32, NotificationClient.Failure>) -> Void)] = []
    private(set) var answered: Set<Int> = []
    private(set) var closed: [UInt32] = []
    private var nextID: UInt32 = 1

    func notify(_ request: NotifyArguments, reply: @escaping (Result<UInt32, NotificationClient.Failure>) -> Void) {
        requests.append((request, reply))
    }

    func close(serverID: UInt32) { closed.append(serverID) }

    func closedIDs(reply: @escaping (Set<UInt32>?) -> Void) { reply(closedHistory) }

    /// What GetServerInformation would call it.
    var name: String? = "fake"

    func name(reply: @escaping (String?) -> Void) { reply(name) }

    var titles: [String] { requests.map(\.request.alert.title) }
    var unanswered: [Int] { requests.indices.filter { !answered.contains($0) } }

    /// Shows request `index`; returns its server id.
    @discardableResult
    func show(_ index: Int) -> UInt32 {
        defer { nextID += 1 }
        answered.insert(index)
        requests[index].reply(.success(nextID))
        return nextID
    }

    /// Shows request `index` under the id `serverID`, as a server answers a replaces_id.
    func show(_ index: Int, as serverID: UInt32) {
        answered.insert(index)
        requests[index].reply(.success(serverID))
    }

    /// Shows every request not answered yet.
    func showAll() {
        while let index = unanswered.first { show(index) }
    }

    /// Refuses request `index` with an error reply.
    func refuse(_ index: Int, _ message: String = "Too busy.") {
        answered.insert(index)
        requests[index].reply(.failure(.failed(.failed(message))))
    }

    /// Another process takes the name; it answers its capabilities at once.
    func restart() {
        for index in unanswered { refuse(index, "The server left.") }
        nextID = 1
        let owner = ":1.\(Int.random(in: 100...999))"
        server = "bus-1 " + owner
        onEvent(.ownerChanged(owner))
        onEvent(.ready)
    }
}

/// A presenter on a fake server and clock, with a real store in a scratch folder.
final class DeliveryHarness {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("chime-delivery-\(UUID().uuidString)")
    let time = FakeTime()
    let server = FakeServer()
    let log = LogRecorder()
    let loop = EventLoop()
    let store: Store
    let commits: CommitQueue
    let settings: Settings
    let presenter: Presenter
    private(set) var presses: [Press] = []
    private(set) var closings: [Closing] = []

    /// `apps` as the config's `[App …]` groups; `frontApp` asks the app in front.
    init(apps: [String: AppSettings] = [:], frontApp: FrontAppAsking? = nil) throws {
        store = try Store(directory: directory)
        commits = CommitQueue(store: store, loop: loop)
        settings = Settings(path: directory.appendingPathComponent("config").path, logger: log.logger)
        var config = Config()
        config.apps = apps
        settings.take(.success(config))
        presenter = Presenter(server: server, store: store, commits: commits, time: time, settings: settings,
                              frontApp: frontApp, logger: log.logger)
        presenter.onPress = { [unowned self] in self.presses.append($0) }
        presenter.onClosed = { [unowned self] in self.closings.append($0) }
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    /// What the store keeps for re-sending, after committing what is staged.
    func storedDeliveries() throws -> [StoredDelivery] {
        commits.commit()
        return try store.deliveries().deliveries
    }

    /// The history's events, oldest first, as "event id".
    func history() throws -> [String] {
        commits.commit()
        return try store.history(limit: 1000).reversed().map { "\($0.event.rawValue) \($0.id)" }
    }

    func deliver(_ id: String, title: String? = nil, category: String? = nil, expires: Int32? = nil, resident: Bool = false,
                 due: Date? = nil) {
        var alert = Alert(title: title ?? id)
        alert.category = category
        alert.expires = expires
        if resident { alert.hints = [.resident(true)] }
        presenter.deliver(id: id, kind: .scheduled, alert: alert, due: due ?? time.now)
    }
}
