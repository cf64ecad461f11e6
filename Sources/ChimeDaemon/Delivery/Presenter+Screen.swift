import ChimeCore
import FoundationEssentials

/// The presenter's side that faces the screen: the server changing, presses, closes.
extension Presenter {
    /// After a press handled by other means (`InvokeAction`), the popup of `id` goes,
    /// as after a press on it, unless it is resident.
    func dismiss(id: String, after key: String) {
        for delivery in deliveries.values where delivery.id == id {
            guard let serverID = delivery.serverID else { continue }
            markPressed(delivery)
            closeAfterPress(delivery, serverID: serverID, key: key)
        }
    }

    /// Takes `id` off the screen, resident or not, and out of the queue: the user put it
    /// off (`Snooze`), and a press on a popup the server keeps does nothing more.
    func closeSnoozed(id: String) {
        close(deliveries.values.filter { $0.id == id }, as: .snooze)
    }

    /// Takes the popups of `ids` off the screen: another device did what they ask (a sync
    /// of their calendar read it completed or acknowledged). Not a dismissal here: nothing
    /// is written back for it.
    func closeDoneElsewhere(ids: [String]) {
        let done = Set(ids)
        close(deliveries.values.filter { done.contains($0.stored.id) }, as: .elsewhere)
    }

    /// Takes `closing` off the screen and out of the queue, closed by `closer`.
    private func close(_ closing: [Delivery], as closer: Delivery.Closer) {
        for delivery in closing {
            markPressed(delivery)
            delivery.closer = closer
            switch delivery.state {
            case .shown(let serverID):
                server.close(serverID: serverID)
            case .waiting:
                discard(delivery)
            case .sent:
                // Closed as soon as the server names it (``shown(_:serverID:)``); forgotten if it fails.
                delivery.withdrawn = true
                guard delivery.durable else { continue }
                delivery.durable = false
                let seq = delivery.seq
                stage("forget the delivery of \(delivery.stored.id)") { store, db in try store.deleteDelivery(seq: seq, in: db) }
            }
        }
    }

    /// The occurrences on screen or on their way there: each notification's id and when it rang.
    func onScreenOccurrences() -> [(id: String, rang: Date)] {
        deliveries.values.filter { $0.stored.kind == .scheduled && !$0.pressed }.map { ($0.stored.id, $0.stored.due) }
    }

    func handle(_ event: NotificationClient.Event) {
        switch event {
        case .ownerChanged:
            serverChanged()
        case .ready:
            // A new server: what was backing off from the old one goes now.
            backoff.removeAll()
            if !takeovers.isEmpty { takeOver() }
            pump()
        case .actionInvoked(let serverID, let key):
            pressed(serverID: serverID, key: key)
        case .closed(let serverID, let reason):
            closed(serverID: serverID, reason: reason)
        }
    }

    /// The old server's ids mean nothing to the new one. What it showed with buttons is
    /// posted again, ahead of anything waiting; answers still due from it fail by themselves.
    ///
    /// `persistence` is a promise of one server process: the specification's "retained
    /// until acknowledged or removed by the user" lets a sender rely on the server instead
    /// of reminding by itself. A new owner of the name is a new process (GNOME Shell keeps
    /// its list in its own memory) whose ids start afresh, so whatever the new one
    /// advertises it holds nothing of the old one's; what the old one promised to keep and
    /// the user never dismissed is posted again too, buttons or not.
    private func serverChanged() {
        let orphans = onScreen.removeAll().compactMap { deliveries[$0] }
        var reposted: [Int64] = []
        for delivery in orphans {
            delivery.expiry = nil
            let actionable = !settings.expand(delivery.stored.alert).allActions.isEmpty
            guard !delivery.pressed, actionable || delivery.keptUntilDismissed else {
                remove(delivery)
                continue
            }
            delivery.state = .waiting
            if delivery.stored.kind == .immediate { waitingImmediate += 1 }
            // Waiting again: stored as waiting, so that a chimed stopped now sends it too.
            forgetScreenRow(of: delivery)
            delivery.shownAt = nil
            makeDurable(delivery)
            reposted.append(delivery.stored.seq)
        }
        if !reposted.isEmpty { logger.info("Posting \(reposted.count) notifications again on the next server.") }
        queue.insert(contentsOf: reposted, at: 0)
        retryTimer = nil
    }

    private func pressed(serverID: UInt32, key identifier: String) {
        guard let seq = onScreen[serverID], let delivery = deliveries[seq] else { return }
        // A server with action-icons reports the icon it was given in the key's place.
        let key = delivery.keysByIdentifier[identifier] ?? identifier
        guard !delivery.pressed else {
            // mako and lxqt-notificationd keep the popup after a button: a second press
            // on it must not act again.
            logger.notice("Ignored '\(key)' on \(delivery.stored.id): a button of that popup was already pressed.")
            return
        }
        markPressed(delivery)
        onPress(settings.press(id: delivery.stored.id, key: key, alert: delivery.stored.alert, kind: delivery.stored.kind))
        closeAfterPress(delivery, serverID: serverID, key: key)
    }

    private func closeAfterPress(_ delivery: Delivery, serverID: UInt32, key: String) {
        guard !delivery.stored.alert.hints.contains(.resident(true)) else { return }
        delivery.closer = .press(key)
        server.close(serverID: serverID)
    }

    private func closed(serverID: UInt32, reason: UInt32) {
        guard let seq = onScreen.remove(serverID), let delivery = deliveries[seq] else { return }
        remove(delivery)
        let alert = delivery.stored.alert
        let closing: Closing
        switch delivery.closer {
        case .expiry:
            // Chime's CloseNotification comes back as reason 3; it expired all the same.
            closing = Closing(id: delivery.stored.id, reason: 1, alert: alert, kind: delivery.stored.kind,
                              detail: "Its expiry time passed.")
        case .press(let key):
            // The user's press took it away, whichever of Chime or the server (dunst
            // closes a clicked popup itself) closed it first: dismissed, reason 2.
            let label = settings.expand(alert).allActions.first { $0.key == key }?.label ?? key
            closing = Closing(id: delivery.stored.id, reason: 2, alert: alert, kind: delivery.stored.kind,
                              detail: "Closed after '\(label)' was pressed.")
        case .snooze:
            closing = Closing(id: delivery.stored.id, reason: 2, alert: alert, kind: delivery.stored.kind, detail: "Snoozed.")
        case .elsewhere:
            // Closed by Chime, as CloseNotification would: reason 3.
            closing = Closing(id: delivery.stored.id, reason: 3, alert: alert, kind: delivery.stored.kind,
                              detail: "Done on another device, as its calendar says.")
        case .takeover:
            // Whether it expired or the user closed it, nobody heard: undefined, reason 4.
            closing = Closing(id: delivery.stored.id, reason: 4, alert: alert, kind: delivery.stored.kind,
                              detail: "Gone from the screen while chimed was stopped.")
        case nil:
            let detail = switch reason {
            case 1: "The server's time for it ran out."
            case 2: "Dismissed."
            case 3: "Closed by a program."
            default: "Closed."
            }
            closing = Closing(id: delivery.stored.id, reason: reason, alert: alert, kind: delivery.stored.kind, detail: detail)
        }
        onClosed(closing)
    }
}
