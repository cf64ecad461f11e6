import Localization

extension LateText {
    /// How late, in chimed's language, for the late mark on a notification ("Due 5 min
    /// ago."); ``describe(_:)`` stays English for the log and the history.
    static func spoken(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        switch total {
        // TRANSLATORS: these fill "Due %1$s ago.": use the form that reads well there.
        case ..<60: return localized("%1$d s", total)
        case ..<3600: return localized("%1$d min", total / 60)
        case ..<86_400:
            let (hours, minutes) = (total / 3600, total % 3600 / 60)
            return minutes == 0 ? localized("%1$d h", hours) : localized("%1$d h %2$d min", hours, minutes)
        default: return pluralized("%1$d day", "%1$d days", count: total / 86_400, total / 86_400)
        }
    }
}
