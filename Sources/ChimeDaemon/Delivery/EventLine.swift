import ChimeCore
import FoundationEssentials
import Localization

/// The first line of a reminder about a calendar item: when the item starts, counted from
/// the moment the popup is shown, and where ("Starts in 15 min · Room 4"). A reminder
/// rung a day ahead says what it is about, not only its title.
enum EventLine {
    /// The line for `alert` due at `due` and shown at `shown`; nil when it says neither.
    static func text(_ alert: Alert, due: Date, shown: Date) -> String? {
        var parts: [String] = []
        if let lead = alert.leadTime {
            let left = due.addingTimeInterval(lead).timeIntervalSince(shown)
            // Within a minute either way it is starting: "in 0 s" would read as a glitch.
            parts.append(abs(left) < 60 ? localized("Starts now.")
                : left > 0 ? localized("Starts in %1$s.", LateText.spoken(left)) : localized("Started %1$s ago.", LateText.spoken(-left)))
        }
        if let location = alert.location, !location.isEmpty { parts.append(location) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
