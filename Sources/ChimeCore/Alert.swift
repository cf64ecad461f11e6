/// What a notification shows and carries: UILocalNotification's alert, sound, buttons
/// and userInfo, plus what Linux users expect (urgency, app name, expiry).
public struct Alert: Equatable, Sendable, Codable {
    /// The summary line (UILocalNotification's `alertTitle`); never empty.
    public var title: String
    /// The body text (`alertBody`).
    public var body: String = ""
    /// How urgent it is (the `urgency` hint).
    public var urgency: Urgency = .normal
    /// The program the notification speaks for, shown by most servers.
    public var appName: String = "Chime"
    /// The owning app's desktop entry id, without `.desktop`.
    public var desktopEntry: String?
    /// An icon name or an image file (`alertLaunchImage`).
    public var image: String?
    /// What it plays when it shows (`soundName`).
    public var sound: Sound = .serverDefault
    /// A freedesktop category hint (`email.arrived`), or the name of a Chime action set.
    public var category: String?
    /// The buttons, in order.
    public var actions: [Action] = []
    /// The label of the `default` action (`alertAction`); `""` sends none (`hasAction =
    /// false`), and nil leaves it to Chime: "View" for a notification that opens an app.
    public var defaultAction: String?
    /// Milliseconds until the server should close it; nil leaves it to the server.
    public var expires: Int32?
    /// The app icon's badge number when it fires (`applicationIconBadgeNumber`); 0 hides it.
    public var badge: Int?
    /// Extra hints passed to the server as they are.
    public var hints: [Hint] = []
    /// Data for the app, handed back with every action (`userInfo`).
    public var userInfo: [String: UserInfoValue] = [:]
    /// The app's gettext domain: title, body and labels are its msgids, translated when
    /// shown (NSLocalizedString's keys); nil shows them as they are.
    public var textDomain: String?
    /// Where what it reminds of takes place (a calendar item's LOCATION), shown with it.
    public var location: String?
    /// How long after it rings what it reminds of starts (negative: started before it);
    /// the popup says so ("Starts in 15 min"), counted from when it is shown. A repeat
    /// counts from the item's start by it (``FireRule/lead``).
    public var leadTime: Double?

    /// An alert with a title and every other field at its default.
    public init(title: String) {
        self.title = title
    }

    /// The server's action list: `default` first when there is one, then the buttons.
    public var allActions: [Action] {
        (defaultAction.flatMap { $0.isEmpty ? nil : [Action(key: Action.defaultKey, label: $0)] } ?? []) + actions
    }

    /// Checks what every alert must satisfy, naming the field at fault.
    public func validate() throws(FieldError) {
        guard !title.isEmpty else { throw FieldError("title", "must not be empty.") }
        var seen: Set<String> = []
        for action in allActions {
            guard !action.key.isEmpty else { throw FieldError("actions", "an action key must not be empty.") }
            guard seen.insert(action.key).inserted else {
                throw FieldError("actions", "the action key '\(action.key)' appears twice.")
            }
        }
        if let badge, badge < 0 {
            throw FieldError("badge", "must be 0 or more, not \(badge).")
        }
        if let expires, expires < -1 {
            throw FieldError("expires", "must be -1 (server default), 0 (never) or a positive number of milliseconds, not \(expires).")
        }
        for hint in hints {
            if case .custom(let name, _) = hint, name.isEmpty { throw FieldError("hints", "a hint name must not be empty.") }
            if case .custom(let name, .double(let d)) = hint, !d.isFinite {
                throw FieldError("hints.\(name)", "is \(d); a number must be finite.")
            }
        }
        // JSON, the store's form of an alert, has no NaN or infinity.
        for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
            if case .double(let d) = value, !d.isFinite { throw FieldError("userInfo.\(key)", "is \(d); a number must be finite.") }
        }
    }
}

/// The store's form: a field at its default is left out, and a missing one reads as its
/// default. Most alerts are a title and little else; written whole, their defaults were
/// two thirds of a row, and a million rows took 263 MB where they now take 150 MB, which
/// start-up's quick check reads in full. Alerts written whole by earlier versions read
/// the same.
extension Alert {
    private enum CodingKeys: String, CodingKey {
        case title, body, urgency, appName, desktopEntry, image, sound, category, actions, defaultAction, expires, badge, hints,
             userInfo, textDomain, location, leadTime
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(title: try container.decode(String.self, forKey: .title))
        body = try container.decodeIfPresent(String.self, forKey: .body) ?? body
        urgency = try container.decodeIfPresent(Urgency.self, forKey: .urgency) ?? urgency
        appName = try container.decodeIfPresent(String.self, forKey: .appName) ?? appName
        desktopEntry = try container.decodeIfPresent(String.self, forKey: .desktopEntry)
        image = try container.decodeIfPresent(String.self, forKey: .image)
        sound = try container.decodeIfPresent(Sound.self, forKey: .sound) ?? sound
        category = try container.decodeIfPresent(String.self, forKey: .category)
        actions = try container.decodeIfPresent([Action].self, forKey: .actions) ?? actions
        defaultAction = try container.decodeIfPresent(String.self, forKey: .defaultAction)
        expires = try container.decodeIfPresent(Int32.self, forKey: .expires)
        badge = try container.decodeIfPresent(Int.self, forKey: .badge)
        hints = try container.decodeIfPresent([Hint].self, forKey: .hints) ?? hints
        userInfo = try container.decodeIfPresent([String: UserInfoValue].self, forKey: .userInfo) ?? userInfo
        textDomain = try container.decodeIfPresent(String.self, forKey: .textDomain)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        leadTime = try container.decodeIfPresent(Double.self, forKey: .leadTime)
    }

    public func encode(to encoder: any Encoder) throws {
        let defaults = Alert(title: title)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        if body != defaults.body { try container.encode(body, forKey: .body) }
        if urgency != defaults.urgency { try container.encode(urgency, forKey: .urgency) }
        if appName != defaults.appName { try container.encode(appName, forKey: .appName) }
        try container.encodeIfPresent(desktopEntry, forKey: .desktopEntry)
        try container.encodeIfPresent(image, forKey: .image)
        if sound != defaults.sound { try container.encode(sound, forKey: .sound) }
        try container.encodeIfPresent(category, forKey: .category)
        if !actions.isEmpty { try container.encode(actions, forKey: .actions) }
        try container.encodeIfPresent(defaultAction, forKey: .defaultAction)
        try container.encodeIfPresent(expires, forKey: .expires)
        try container.encodeIfPresent(badge, forKey: .badge)
        if !hints.isEmpty { try container.encode(hints, forKey: .hints) }
        if !userInfo.isEmpty { try container.encode(userInfo, forKey: .userInfo) }
        try container.encodeIfPresent(textDomain, forKey: .textDomain)
        try container.encodeIfPresent(location, forKey: .location)
        try container.encodeIfPresent(leadTime, forKey: .leadTime)
    }
}

/// How urgent a notification is, as the freedesktop `urgency` hint's byte.
public enum Urgency: UInt8, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case low = 0, normal = 1, critical = 2

    /// Parses `low`, `normal` or `critical` (any case).
    public init(name: String) throws(FieldError) {
        guard let match = Self.allCases.first(where: { $0.description == name.lowercased() }) else {
            throw FieldError("urgency", "'\(name)' is not one of low, normal, critical.")
        }
        self = match
    }

    /// The name people write.
    public var description: String {
        switch self {
        case .low: "low"
        case .normal: "normal"
        case .critical: "critical"
        }
    }
}

/// One button: the key reported back when pressed, and the label shown.
public struct Action: Equatable, Sendable, Codable {
    /// The key servers use for activating the notification itself.
    public static let defaultKey = "default"

    /// The key reported back when it is pressed.
    public var key: String
    /// The label shown on it.
    public var label: String
    /// How it behaves when pressed; nil for the defaults (rows stored before options existed have none).
    public var options: ActionOptions?

    /// A button with its key and label; default options are kept as nil.
    public init(key: String, label: String, options: ActionOptions? = nil) {
        self.key = key
        self.label = label
        self.options = options?.isDefault == true ? nil : options
    }

    /// Its options, the defaults when it has none.
    public var resolvedOptions: ActionOptions { options ?? ActionOptions() }
}

/// What to play when the notification shows.
public enum Sound: Equatable, Sendable, Codable {
    /// Send no sound hint: the server does what it always does.
    case serverDefault
    /// Silence, even where the server would play something (`suppress-sound`).
    case none
    /// A freedesktop sound-theme name (`sound-name`).
    case themed(String)
    /// A sound file (`sound-file`).
    case file(String)

    /// The sound-theme name used for `default`, as an alarm clock would ring.
    public static let defaultName = "alarm-clock-elapsed"

    /// Parses a user's word: `none`, `default`, an absolute path or `file://` URI, or a theme name.
    public init(parsing text: String) throws(FieldError) {
        switch text {
        case "": throw FieldError("sound", "must not be empty; use 'none' for silence.")
        case "none": self = .none
        case "default": self = .themed(Self.defaultName)
        case let path where path.hasPrefix("/"): self = .file(path)
        case let uri where uri.hasPrefix("file://"): self = .file(String(uri.dropFirst("file://".count)))
        default: self = .themed(text)
        }
    }
}

/// A notification hint: the well-known ones typed, anything else by name.
public enum Hint: Equatable, Sendable, Codable {
    case transient(Bool)
    case resident(Bool)
    case custom(name: String, HintValue)

    /// Parses notify-send's `TYPE:VALUE` (types `int`, `double`, `string`, `byte`,
    /// `boolean`) for hint `name`.
    public static func parse(name: String, typedValue: String) throws(FieldError) -> Hint {
        guard let colon = typedValue.firstIndex(of: ":") else {
            throw FieldError("hint.\(name)", "'\(typedValue)' is not TYPE:VALUE (TYPE is int, double, string, byte or boolean).")
        }
        let type = typedValue[..<colon].lowercased()
        let text = String(typedValue[typedValue.index(after: colon)...])
        let value: HintValue
        switch type {
        case "string": value = .string(text)
        case "int":
            guard let v = Int32(text) else { throw FieldError("hint.\(name)", "'\(text)' is not a 32-bit integer.") }
            value = .int32(v)
        case "double":
            guard let v = Double(text), v.isFinite else { throw FieldError("hint.\(name)", "'\(text)' is not a number.") }
            value = .double(v)
        case "byte":
            guard let v = UInt8(text) else { throw FieldError("hint.\(name)", "'\(text)' is not a byte (0 to 255).") }
            value = .byte(v)
        case "boolean", "bool":
            switch text.lowercased() {
            case "true", "1", "yes": value = .boolean(true)
            case "false", "0", "no": value = .boolean(false)
            default: throw FieldError("hint.\(name)", "'\(text)' is not true or false.")
            }
        default:
            throw FieldError("hint.\(name)", "unknown hint type '\(type)'; use int, double, string, byte or boolean.")
        }
        return .custom(name: name, value).normalized
    }

    /// Recognises the well-known hints given by name, so they are typed like the rest.
    public var normalized: Hint {
        switch self {
        case .custom("transient", .boolean(let b)): .transient(b)
        case .custom("resident", .boolean(let b)): .resident(b)
        default: self
        }
    }
}

/// A hint's value, with the types notify-send offers.
public enum HintValue: Equatable, Sendable, Codable {
    case string(String)
    case int32(Int32)
    case double(Double)
    case byte(UInt8)
    case boolean(Bool)
}

/// A value in a notification's userInfo.
///
/// Not a ``HintValue``, though the two look alike: a hint goes to the server with the
/// D-Bus type it was given, which is part of what it says (`urgency` is a byte, `x` and
/// `y` are int32), while userInfo is the app's own data, kept in one integer type,
/// handed back as int64 and matched as text (``text``). One type for both would let a
/// hint lose its type or userInfo carry one that no handler expects.
public enum UserInfoValue: Equatable, Sendable, Codable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case boolean(Bool)
}

/// A field that failed validation, and why: reads as one sentence.
public struct FieldError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The field at fault, as the caller named it (`hints.x`, `at`).
    public let field: String
    /// Why, as the end of a sentence.
    public let reason: String

    /// The error for `field`, which failed for `reason`.
    public init(_ field: String, _ reason: String) {
        self.field = field
        self.reason = reason
    }

    /// `field: reason`: the sentence the caller sees.
    public var description: String { "\(field): \(reason)" }
}

extension UserInfoValue {
    /// The value as text: what `CancelMatching` and the string forms compare against.
    public var text: String {
        switch self {
        case .string(let s): s
        case .integer(let i): String(i)
        case .double(let d): String(d)
        case .boolean(let b): b ? "true" : "false"
        }
    }
}
