import ChimeCore

/// The presenter's one step before `Notify`: what of an occurrence Chime still does, by
/// the user's per-app settings (`[App DESKTOP-ID]`) and the app in front
/// (``FrontApp``). Both must allow a thing for it to happen.
extension Presenter {
    /// Decides for `delivery`; `then` runs once, at once or when its app answered.
    ///
    /// Chime's own notices and notifications without a `desktopEntry` speak for no app:
    /// they show as usual. An app whose settings allow nothing is not asked.
    func decide(_ delivery: Delivery, then: @escaping (OccurrenceDecision) -> Void) {
        guard delivery.stored.kind != .notice, let app = delivery.stored.alert.desktopEntry else { return then(.usual) }
        let switches = settings.app(of: delivery.stored.alert)
        guard let frontApp, !switches.allowed.isEmpty else {
            return then(.combining(settings: switches, app: app, answer: nil))
        }
        frontApp.ask(app, id: delivery.stored.id, alert: delivery.stored.alert) { answer in
            then(.combining(settings: switches, app: app, answer: answer))
        }
    }

    /// Carries out a decision for the delivery `seq`, which holds a slot until here.
    func decided(_ seq: Int64, _ decision: OccurrenceDecision) {
        guard let delivery = deliveries[seq], !delivery.withdrawn else {
            // Cancelled while its app was asked: nothing of it is done.
            return releaseSlot { if let delivery = deliveries[seq] { remove(delivery) } }
        }
        if decision.presentation.contains(.badge) { onBadge(delivery.stored.alert) }
        guard decision.presentation.contains(.alert) else {
            return releaseSlot { withhold(delivery, decision) }
        }
        post(delivery, decision.presentation)
    }

    /// Ends a delivery that is not shown: its history says who took the popup away.
    private func withhold(_ delivery: Delivery, _ decision: OccurrenceDecision) {
        let id = delivery.stored.id
        // With no popup to carry it, the sound (if allowed) is Chime's to play.
        if decision.presentation.contains(.sound) { sounds?.play(delivery.stored.alert.sound, for: id) }
        let did = decision.presentation.isEmpty ? "" : "; Chime still did: \(decision.presentation)"
        switch decision.withheld {
        case .settings(let app)?:
            logger.info("Notification \(id) not shown: [App \(app)] has Alerts=false in the config\(did).")
            record(delivery, .withheld, "Not shown: [App \(app)] has Alerts=false in the config\(did).")
        case .app(let app)?:
            logger.info("Notification \(id) handled by \(app), the app in front\(did).")
            record(delivery, .handled, "Handled by \(app), the app in front (WillPresent)\(did).")
        case nil:
            break
        }
        discard(delivery)
    }
}
