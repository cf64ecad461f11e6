import ChimeCore
import DBus
import FoundationEssentials

/// The arguments of one `Notify` call, shaped by what the server can do.
struct NotifyArguments {
    let alert: Alert
    /// What the server said it can do; nil while it has not said (sent as plain text).
    let capabilities: Set<String>?
    /// The server id of a notification on screen that this one replaces (0: none).
    var replacesID: UInt32 = 0

    init(alert: Alert, capabilities: Set<String>?, replacesID: UInt32 = 0) {
        self.alert = alert
        self.capabilities = capabilities
        self.replacesID = replacesID
    }

    /// `(s app_name, u replaces_id, s app_icon, s summary, s body, as actions, a{sv} hints, i expire_timeout)`
    var arguments: [Value] {
        [
            .string(alert.appName),
            .uint32(replacesID),
            .string(image ?? ""),
            .string(alert.title),
            .string(body),
            .stringArray(alert.allActions.flatMap { [identifier(of: $0), $0.label] }),
            .variantDictionary(hints),
            .int32(alert.expires ?? -1),
        ]
    }

    /// The body as the server will read it: servers with `body-markup` parse it, so
    /// text that was not meant as markup is escaped for them.
    var body: String {
        capabilities?.contains("body-markup") == true ? alert.body.xmlEscaped : alert.body
    }

    /// The image as the specification's "Icons and Images" names one: an icon name as it
    /// is, a file as a `file://` URI, "the only URI schema supported". No `image-data`:
    /// decoding an image file would take an image library into the daemon, and every
    /// server that takes `image-data` (GNOME Shell, Plasma, dunst) reads `image-path` too.
    var image: String? {
        guard let image = alert.image else { return nil }
        return image.hasPrefix("/") ? URL(fileURLWithPath: image).absoluteString : image
    }

    /// Whether the buttons go to the server as icons: the `action-icons` hint makes it read
    /// every action identifier as an icon name, so it is sent only when every button has an
    /// icon, and the icons are distinct and none is another action's key (each identifier
    /// must still name one action when the server reports a press).
    var sendsActionIcons: Bool {
        guard capabilities?.contains("action-icons") == true, !alert.actions.isEmpty else { return false }
        let icons = alert.actions.compactMap { $0.options?.icon }
        return icons.count == alert.actions.count && Set(icons).count == icons.count && !icons.contains(Action.defaultKey)
    }

    /// What the server gets as the action's identifier: its key, or its icon.
    func identifier(of action: Action) -> String {
        guard action.key != Action.defaultKey, sendsActionIcons, let icon = action.options?.icon else { return action.key }
        return icon
    }

    /// The action keys by the identifiers sent for them, when those differ (icons); empty otherwise.
    var keysByIdentifier: [String: String] {
        guard sendsActionIcons else { return [:] }
        return Dictionary(alert.actions.map { (identifier(of: $0), $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether the server plays the sound itself; when unknown, Chime plays it.
    var serverPlaysSound: Bool {
        capabilities?.contains("sound") == true
    }

    /// Whether the server keeps it until the user dismisses it (`persistence`).
    var serverKeepsIt: Bool {
        capabilities?.contains("persistence") == true
    }

    var hints: [(String, Value)] {
        var hints: [(String, Value)] = [("urgency", .byte(alert.urgency.rawValue))]
        if let category = alert.category { hints.append(("category", .string(category))) }
        if let entry = alert.desktopEntry { hints.append(("desktop-entry", .string(entry))) }
        if let image { hints.append(("image-path", .string(image))) }
        if sendsActionIcons { hints.append(("action-icons", .bool(true))) }
        switch alert.sound {
        case .serverDefault: break
        case .none: hints.append(("suppress-sound", .bool(true)))
        case .themed(let name): hints.append(("sound-name", .string(name)))
        case .file(let path): hints.append(("sound-file", .string(path)))
        }
        // A typed field of the alert wins over a raw hint of the same name, and the first
        // of two raw hints of one name wins: a set, so many hints cost linear time.
        var taken = Set(hints.map(\.0))
        for hint in alert.hints {
            let (name, value): (String, Value) = switch hint {
            case .transient(let on): ("transient", .bool(on))
            case .resident(let on): ("resident", .bool(on))
            case .custom(let name, let value): (name, value.dbusValue)
            }
            guard taken.insert(name).inserted else { continue }
            hints.append((name, value))
        }
        return hints
    }
}

extension HintValue {
    var dbusValue: Value {
        switch self {
        case .string(let s): .string(s)
        case .int32(let i): .int32(i)
        case .double(let d): .double(d)
        case .byte(let b): .byte(b)
        case .boolean(let b): .bool(b)
        }
    }
}

extension UserInfoValue {
    var dbusValue: Value {
        switch self {
        case .string(let s): .string(s)
        case .integer(let i): .int64(i)
        case .double(let d): .double(d)
        case .boolean(let b): .bool(b)
        }
    }
}
