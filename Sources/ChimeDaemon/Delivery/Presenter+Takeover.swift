import ChimeCore
import FoundationEssentials

/// What a chimed started again does with the popups the last one left on screen.
///
/// Servers such as dunst and GNOME Shell send `ActionInvoked` and `NotificationClosed`
/// only to the connection that posted the notification last: a press on a popup shown
/// before chimed restarted would go to a connection that is gone. So each popup with
/// something to press (or an expiry Chime keeps) is stored while it is on screen, and
/// the next chimed posts it again with `replaces_id` set to the server's id: the server
/// replaces it in place, its signals now come here. It is posted without a sound and
/// with the text it had, late note included, so that the user sees nothing happen. Where
/// an update in place loses the buttons (GNOME Shell), it is closed and posted afresh.
extension Presenter {
    /// Takes over what the last chimed left on screen, once the first server is ready.
    ///
    /// The same server process (same bus, same unique name) still has them, unless the
    /// user closed them while no chimed listened; one that keeps a history of what it
    /// closed (dunst) is asked first, since dunst shows a closed one again when it is
    /// replaced. Another process on the same bus means the server restarted meanwhile:
    /// what had buttons is posted again as after a server change. A popup of another bus
    /// (the session ended) is gone with it.
    func takeOver() {
        let left = takeovers
        takeovers = []
        guard let current = server.server else { return }
        let bus = current.prefix { $0 != " " }
        var mine: [ShownDelivery] = []
        var orphans: [Delivery] = []
        for shown in left {
            if shown.server == current {
                mine.append(shown)
                continue
            }
            if shown.server.prefix(while: { $0 != " " }) == bus, worthPostingAgain(shown.delivery.alert) {
                let delivery = Delivery(shown.delivery, durable: false)
                add(delivery)
                makeDurable(delivery)
                orphans.append(delivery)
            }
            // Its row goes: what is posted again is stored as waiting.
            let seq = shown.delivery.seq
            stage("forget the screen row of \(shown.delivery.id)") { store, db in try store.deleteShown(seq: seq, in: db) }
        }
        if !orphans.isEmpty {
            logger.info("The notification server restarted while chimed was stopped; posting \(orphans.count) notifications with buttons again.")
            queue.insert(contentsOf: orphans.map(\.seq), at: 0)
        }
        guard !mine.isEmpty else { return }
        server.name { [weak self] name in
            self?.server.closedIDs { [weak self] closed in self?.takeOver(mine, closed: closed, inPlace: Self.updatesKeepButtons(name)) }
        }
    }

    /// Whether the server called `name` keeps a popup's buttons when it is updated in place.
    /// GNOME Shell 43 does not: `Notification.update` clears the actions and the banner on
    /// screen rebuilds its buttons from that empty list before they are added again, so a
    /// banner updated in place has none. Its popups are posted in place first all the same,
    /// since only its answer (the same id, or a new one for a popup it no longer has) tells
    /// whether it still shows them; one it still shows is then closed and posted afresh.
    static func updatesKeepButtons(_ name: String?) -> Bool {
        name != "gnome-shell"
    }

    private func takeOver(_ mine: [ShownDelivery], closed: Set<UInt32>?, inPlace: Bool) {
        var taken: [Int64] = []
        for shown in mine {
            let seq = shown.delivery.seq
            guard closed?.contains(shown.serverID) != true else {
                logger.info("Notification \(shown.delivery.id) was closed while chimed was stopped; not taken over.")
                stage("forget the screen row of \(shown.delivery.id)") { store, db in try store.deleteShown(seq: seq, in: db) }
                continue
            }
            let delivery = Delivery(shown.delivery, durable: false)
            delivery.takeover = inPlace ? .inPlace(shown.serverID) : .probe(shown.serverID)
            delivery.shownAt = shown.shownAt
            delivery.onScreenRow = true
            add(delivery)
            taken.append(delivery.seq)
        }
        guard !taken.isEmpty else { return }
        logger.info("Taking over \(taken.count) notifications the last chimed left on screen\(inPlace ? "" : ", afresh where still shown").")
        queue.insert(contentsOf: taken, at: 0)
        pump()
    }

    /// Whether a notification the server no longer shows is worth posting again: its
    /// buttons are the promise.
    func worthPostingAgain(_ alert: Alert) -> Bool {
        !settings.expand(alert).allActions.isEmpty
    }

    /// What became of a popup posted again in a takeover.
    enum TakeoverAnswer {
        /// It is on screen under the id the server answered.
        case shown
        /// The server no longer showed it: the copy just made is being closed.
        case gone
        /// It is posted once more (afresh): the answer to that one counts.
        case again
    }

    /// The answer to a takeover. A server replaces a popup it shows in place and answers
    /// with its id, as the specification says it must; another id means it no longer
    /// showed the old one (the user closed it while no chimed listened, or it expired),
    /// and the copy just made would stand for a popup the user already dealt with: it is
    /// closed at once, and forgotten when the server says it closed.
    func tookOver(_ delivery: Delivery, _ takeover: Delivery.Takeover, as serverID: UInt32) -> TakeoverAnswer {
        switch takeover {
        case .afresh:
            logger.info("Took over \(delivery.id) afresh as server id \(serverID).")
            return .shown
        case .inPlace(let old) where serverID == old:
            logger.info("Took over \(delivery.id) as server id \(serverID).")
            return .shown
        case .probe(let old) where serverID == old:
            delivery.takeover = .afresh(old)
            delivery.state = .waiting
            if delivery.stored.kind == .immediate { waitingImmediate += 1 }
            queue.insert(delivery.seq, at: 0)
            return .again
        case .inPlace(let old), .probe(let old):
            logger.info("Notification \(delivery.id) was no longer on screen (server id \(old)); its copy is closed.")
            delivery.closer = .takeover
            forgetScreenRow(of: delivery)
            return .gone
        }
    }

    /// Stores what the server shows, when a chimed started again would have something
    /// to take over: buttons to press, or an expiry that Chime keeps.
    func keepScreenRow(of delivery: Delivery, serverID: UInt32) {
        guard !delivery.pressed, let server = server.server,
              worthPostingAgain(delivery.stored.alert) || (delivery.stored.alert.expires ?? 0) > 0
        else { return forgetScreenRow(of: delivery) }
        delivery.onScreenRow = true
        let shown = ShownDelivery(delivery: delivery.stored, serverID: serverID, server: server, shownAt: delivery.shownAt ?? time.now)
        stage("store the screen row of \(delivery.id)") { store, db in try store.save(shown, in: db) }
    }

    /// Forgets the stored screen row of `delivery`, if it has one.
    func forgetScreenRow(of delivery: Delivery) {
        guard delivery.onScreenRow else { return }
        delivery.onScreenRow = false
        let seq = delivery.seq
        stage("forget the screen row of \(delivery.id)") { store, db in try store.deleteShown(seq: seq, in: db) }
    }

    /// A press on `delivery` is handled (or its popup put off): no second press acts, and a
    /// chimed started again does not take the popup over, which would make it pressable again.
    func markPressed(_ delivery: Delivery) {
        delivery.pressed = true
        forgetScreenRow(of: delivery)
    }
}
