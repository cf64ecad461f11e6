import ChimeCore

/// A press on a notification, as the presenter hears it and ``PressHandler`` acts on it:
/// the button resolved when it was pressed (``Settings/press(id:key:alert:kind:)``).
struct Press {
    let id: String
    let key: String
    let alert: Alert
    let kind: StoredDelivery.Kind
    /// The button as shown (its label in chimed's language, its options); nil for a key
    /// the notification does not have.
    let button: Action?
    /// What its category says it does; nil: it is only announced.
    let handler: ActionHandler?

    /// The label as shown, or the key when it has none.
    var label: String {
        guard let label = button?.label, !label.isEmpty else { return key }
        return label
    }
}

/// A notification Chime showed that left the screen.
struct Closing {
    let id: String
    /// The reason as `Closed` reports it: 1 when it expired (by the server, or by
    /// Chime enforcing `expires`), 2 dismissed (by the user, a press included), 3
    /// closed by a call.
    let reason: UInt32
    let alert: Alert
    let kind: StoredDelivery.Kind
    /// What ended it, for the history.
    let detail: String
}
