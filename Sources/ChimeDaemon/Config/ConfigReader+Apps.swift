/// `[App DESKTOP-ID]` groups: iOS's `registerUserNotificationSettings`, set by the user
/// for each app (`Alerts=`, `Sounds=`, `Badges=`; true when absent).
extension ConfigReader {
    /// The keys of an `[App]` group, each a switch.
    static let appKeys = ["Alerts", "Sounds", "Badges"]

    /// The settings of the app `id` (`.desktop` may follow it), or nil and an error.
    mutating func app(_ id: String, group: String) -> AppSettings? {
        if id.contains("/") {
            fail(group, nil, "'\(id)' is not a desktop entry id such as org.example.App: write [App DESKTOP-ID].")
            return nil
        }
        guard checkKeys(group, allowed: Set(Self.appKeys)) else { return nil }
        var settings = AppSettings()
        for key in Self.appKeys {
            guard let text = string(group, key) else { return nil }
            guard let text else { continue }
            guard let on = ["true": true, "false": false][text] else {
                fail(group, key, "\(key) is '\(text)': write true or false.")
                return nil
            }
            switch key {
            case "Alerts": settings.alerts = on
            case "Sounds": settings.sounds = on
            default: settings.badges = on
            }
        }
        return settings
    }

    /// A desktop entry id as apps name themselves in notifications: without `.desktop`.
    static func appID(_ text: String) -> String {
        text.hasSuffix(".desktop") ? String(text.dropLast(".desktop".count)) : text
    }
}
