import ChimeCore
import FoundationEssentials

/// One occurrence on its way to the screen, or on it: what the ``Presenter`` keeps.
final class Delivery {
    enum State {
        /// For a server, a free slot, or its next try.
        case waiting
        /// Being decided (its app asked whether it is in front), or a `Notify` for it is
        /// in flight.
        case sent
        /// The server returned this id for it.
        case shown(serverID: UInt32)
    }

    /// Why Chime itself closed it: the server's reason says only "a call".
    enum Closer {
        case expiry
        case press(String)
        /// `Snooze`: the user put it off until later.
        case snooze
        /// A takeover found it gone from the screen: its copy is closed at once.
        case takeover
        /// Done on another device: its calendar's sync said so.
        case elsewhere
    }

    var stored: StoredDelivery
    var state: State = .waiting
    /// A row for it is in the store (or staged for the next commit).
    var durable: Bool
    /// Cancelled while it was sent: forget it whatever the answer.
    var withdrawn = false
    /// A press on it was handled: a second one (servers that keep the popup) is not.
    var pressed = false
    /// The action keys by the identifiers the server got for them (icons), when they differ.
    var keysByIdentifier: [String: String] = [:]
    /// The server that showed it advertised `persistence`: it promised to keep it until
    /// the user dismissed it.
    var keptUntilDismissed = false
    var closer: Closer?
    /// A server id of a notification Chime does not follow, to replace (notify-send's -r).
    var replacesServerID: UInt32?
    /// Chime's own expiry timer (GNOME Shell ignores expire_timeout).
    var expiry: AnyObject?
    /// When the server first showed it (a chimed started again keeps the first time).
    var shownAt: Date?
    /// A row for it is in the store's `screen` table (or staged): a chimed started again
    /// takes it over.
    var onScreenRow = false
    /// How a chimed started again takes over a popup the last one left on screen.
    enum Takeover {
        /// Posted again with the server's id as replaces_id.
        case inPlace(UInt32)
        /// Posted in place first, to learn whether the server still shows it; then, where an
        /// update in place loses the buttons (``Presenter/updatesKeepButtons(_:)``), afresh.
        case probe(UInt32)
        /// The server's id is closed and the popup posted again under a new one.
        case afresh(UInt32)
    }

    /// Set while the popup a chimed started again found on screen is posted again, without
    /// a sound, its text as it was.
    var takeover: Takeover?

    init(_ stored: StoredDelivery, durable: Bool) {
        self.stored = stored
        self.durable = durable
    }

    var seq: Int64 { stored.seq }
    var id: String { stored.id }

    var isWaiting: Bool {
        if case .waiting = state { return true }
        return false
    }

    var isShown: Bool {
        if case .shown = state { return true }
        return false
    }

    /// The server id it is shown as, if it is.
    var serverID: UInt32? {
        if case .shown(let serverID) = state { return serverID }
        return nil
    }
}

extension String {
    /// The sentence without its final full stop, to quote it inside another.
    var withoutFullStop: String {
        hasSuffix(".") ? String(dropLast()) : self
    }
}
