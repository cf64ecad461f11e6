import ChimeAPI
import ChimeCore
import DBus

/// Turns what a bus caller sent into an ``Alert``, or a D-Bus `InvalidArgs` error whose
/// sentence names the key at fault.
///
/// Two forms arrive: the typed `a{sv}` that programs and `gdbus` send, and `a{ss}` with
/// strings only for `dbus-send`, which cannot build variants. Both set the same fields
/// through ``AlertFields``, so a field means the same thing whichever form set it.
enum AlertDecoding {
    /// Decodes the typed form: `title` is required; see ``AlertFields`` for the rest.
    /// `extra` gets the keys that are not alert fields first, and says whether it took them.
    /// With a `base` (Update), the keys given change that alert and the others keep it.
    static func decode(
        typed entries: [(key: String, value: Value)], base: Alert? = nil,
        extra: (String, Value) throws(FieldError) -> Bool = { _, _ in false }
    ) throws(DBusError) -> Alert {
        var fields = AlertFields(base)
        for (key, wrapped) in entries {
            let value = wrapped.unwrapped
            do throws(FieldError) {
                if try extra(key, value) { continue }
                switch NotificationKey(rawValue: key) {
                case .actions:
                    fields.actions = try actions(from: value)
                case .actionOptions:
                    fields.actionOptions = try ActionOptionsDecoding.typed(value)
                case .hints:
                    guard let hints = value.stringKeyedEntries else { throw FieldError(key, "must be a dictionary a{sv}.") }
                    try RequestLimits.Counted.hints.check(hints.count)
                    fields.hints = try hints.map { (name, v) throws(FieldError) in try hint(name: name, value: v.unwrapped) }
                case .userInfo:
                    guard let info = value.stringKeyedEntries else { throw FieldError(key, "must be a dictionary a{sv}.") }
                    try RequestLimits.Counted.userInfo.check(info.count)
                    for (name, v) in info { fields.userInfo[name] = try userInfoValue(name, v.unwrapped) }
                case .urgency:
                    if case .byte(let b) = value {
                        guard let urgency = Urgency(rawValue: b) else { throw FieldError(key, "byte \(b) is not 0 (low), 1 (normal) or 2 (critical).") }
                        fields.alert.urgency = urgency
                    } else if let name = value.stringValue {
                        fields.alert.urgency = try Urgency(name: name)
                    } else {
                        throw FieldError(key, "must be a byte (0-2) or one of low, normal, critical, not type '\(value.signature)'.")
                    }
                case .expires:
                    guard let ms = value.integerValue, let ms32 = Int32(exactly: ms) else {
                        throw FieldError(key, "must be an integer number of milliseconds, not type '\(value.signature)'.")
                    }
                    fields.alert.expires = ms32
                case .badge:
                    guard let badge = value.integerValue else { throw FieldError(key, "must be an integer, not type '\(value.signature)'.") }
                    fields.alert.badge = Int(clamping: badge)
                case .leadTime:
                    let seconds: Double? = if case .double(let number) = value { number } else { value.integerValue.map(Double.init) }
                    guard let seconds else { throw FieldError(key, "must be a number of seconds, not type '\(value.signature)'.") }
                    try fields.setLeadTime(seconds)
                default:
                    guard let text = value.stringValue else {
                        guard AlertFields.stringKeys.contains(key) else { throw unknownKey(key) }
                        throw FieldError(key, "must be a string, not type '\(value.signature)'.")
                    }
                    try fields.set(key, text)
                }
            } catch {
                throw .invalidArgs(error.description)
            }
        }
        return try fields.finish()
    }

    /// Decodes the string form: `action.KEY` = label, `hint.NAME` = `TYPE:VALUE`,
    /// `userInfo.KEY` = string, and the plain string fields by name.
    static func decode(
        title: String, body: String, options: [(key: String, value: String)], base: Alert? = nil,
        extra: (String, String) throws(FieldError) -> Bool = { _, _ in false }
    ) throws(DBusError) -> Alert {
        var fields = AlertFields(base)
        // Buttons and hints given replace the base's, as the typed form's lists do.
        if options.contains(where: { $0.key.hasPrefix("action.") }) { fields.actions = [] }
        if options.contains(where: { $0.key.hasPrefix("hint.") }) { fields.hints = [] }
        do throws(FieldError) {
            try fields.set("title", title)
            try fields.set("body", body)
            for (key, text) in options {
                if try extra(key, text) { continue }
                if let name = key.suffix(afterPrefix: "action.") {
                    fields.actions.append(Action(key: name, label: text))
                    try RequestLimits.Counted.actions.check(fields.actions.count)
                } else if let name = key.suffix(afterPrefix: ActionOptionsDecoding.stringPrefix) {
                    fields.actionOptions[name] = try ActionOptionsDecoding.words(text, action: name)
                } else if let name = key.suffix(afterPrefix: "hint.") {
                    fields.hints.append(try Hint.parse(name: name, typedValue: text))
                    try RequestLimits.Counted.hints.check(fields.hints.count)
                } else if let name = key.suffix(afterPrefix: "userInfo.") {
                    fields.userInfo[name] = .string(text)
                    try RequestLimits.Counted.userInfo.check(fields.userInfo.count)
                } else if key == "urgency" {
                    fields.alert.urgency = try Urgency(name: text)
                } else if key == "expires" {
                    guard let ms = Int32(text) else { throw FieldError(key, "'\(text)' is not a whole number of milliseconds.") }
                    fields.alert.expires = ms
                } else if key == "badge" {
                    guard let badge = Int(text) else { throw FieldError(key, "'\(text)' is not a whole number.") }
                    fields.alert.badge = badge
                } else if key == "title" || key == "body" {
                    throw FieldError(key, "is given as an argument of its own, not as an option.")
                } else {
                    try fields.set(key, text)
                }
            }
        } catch {
            throw .invalidArgs(error.description)
        }
        return try fields.finish()
    }

    private static func unknownKey(_ key: String) -> FieldError {
        FieldError(key, "is not a notification field; known fields are \(AlertFields.allKeys.joined(separator: ", ")).")
    }

    private static func actions(from value: Value) throws(FieldError) -> [Action] {
        guard let elements = value.arrayElements else { throw FieldError("actions", "must be an array of (key, label) pairs a(ss).") }
        try RequestLimits.Counted.actions.check(elements.count)
        var actions: [Action] = []
        for element in elements {
            guard let pair = element.structureFields, pair.count == 2,
                  let key = pair[0].stringValue, let label = pair[1].stringValue else {
                throw FieldError("actions", "must be an array of (key, label) pairs a(ss), not '\(value.signature)'.")
            }
            actions.append(Action(key: key, label: label))
        }
        return actions
    }

    private static func hint(name: String, value: Value) throws(FieldError) -> Hint {
        let hintValue: HintValue
        switch value {
        case .string(let s): hintValue = .string(s)
        case .int32(let i): hintValue = .int32(i)
        case .double(let d):
            // JSON, and so the store, has no NaN or infinity: such a value would fail the
            // whole commit that carries it.
            guard d.isFinite else { throw FieldError("hints.\(name)", "is \(d); a number must be finite.") }
            hintValue = .double(d)
        case .byte(let b): hintValue = .byte(b)
        case .bool(let b): hintValue = .boolean(b)
        default:
            throw FieldError("hints.\(name)", "has type '\(value.signature)'; hints may be s, i, d, y or b.")
        }
        return Hint.custom(name: name, hintValue).normalized
    }

    private static func userInfoValue(_ name: String, _ value: Value) throws(FieldError) -> UserInfoValue {
        switch value {
        case .string(let s): return .string(s)
        case .bool(let b): return .boolean(b)
        case .double(let d):
            guard d.isFinite else { throw FieldError("userInfo.\(name)", "is \(d); a number must be finite.") }
            return .double(d)
        default:
            if let i = value.integerValue { return .integer(i) }
            throw FieldError("userInfo.\(name)", "has type '\(value.signature)'; userInfo values may be strings, integers, doubles or booleans.")
        }
    }
}

/// The alert being assembled, with the fields both forms set from a plain string.
struct AlertFields {
    /// The keys set from a plain string, and every key of an alert: NotificationKey's
    /// names, so that the decoder and the encoder cannot drift apart.
    static let stringKeys = [NotificationKey.title, .body, .appName, .desktopEntry, .image, .sound, .category, .defaultAction, .textDomain,
                             .location].map(\.rawValue)
    static let allKeys = stringKeys
        + [NotificationKey.urgency, .expires, .badge, .leadTime, .actions, .actionOptions, .hints, .userInfo].map(\.rawValue)

    var alert = Alert(title: "")
    var actions: [Action] = []
    var actionOptions: [String: ActionOptions] = [:]
    var hints: [Hint] = []
    var userInfo: [String: UserInfoValue] = [:]

    /// Fields to fill in from scratch, or starting from `base`'s.
    init(_ base: Alert? = nil) {
        guard let base else { return }
        alert = base
        actions = base.actions
        hints = base.hints
        userInfo = base.userInfo
    }

    mutating func set(_ key: String, _ text: String) throws(FieldError) {
        switch NotificationKey(rawValue: key) {
        case .title:
            guard text.utf8.count <= RequestLimits.titleBytes else {
                throw FieldError(key, "is \(text.utf8.count) bytes long; a title may have at most \(RequestLimits.titleBytes).")
            }
            alert.title = text
        case .body: alert.body = text
        case .appName: alert.appName = text
        case .desktopEntry: alert.desktopEntry = text.hasSuffix(".desktop") ? String(text.dropLast(8)) : text
        case .image: alert.image = text
        case .sound: alert.sound = try Sound(parsing: text)
        case .category: alert.category = text
        // An empty label is UILocalNotification's hasAction = NO.
        case .defaultAction: alert.defaultAction = text
        case .textDomain: alert.textDomain = try TextDomainField.parse(text)
        case .location: alert.location = text.isEmpty ? nil : text
        case .leadTime:
            guard let seconds = Double(text) else { throw FieldError(key, "'\(text)' is not a number of seconds.") }
            try setLeadTime(seconds)
        default:
            throw FieldError(key, "is not a notification field; known fields are \(Self.allKeys.joined(separator: ", ")).")
        }
    }

    /// Up to a year either way: an alarm rings before, or after, the start of what it is about.
    mutating func setLeadTime(_ seconds: Double) throws(FieldError) {
        guard seconds.isFinite, abs(seconds) <= 366 * 86_400 else {
            throw FieldError(NotificationKey.leadTime.rawValue, "is \(seconds); it must be a number of seconds within a year.")
        }
        alert.leadTime = seconds
    }

    func finish() throws(DBusError) -> Alert {
        var result = alert
        result.actions = actions
        result.hints = hints
        result.userInfo = userInfo
        do {
            try ActionOptionsDecoding.apply(actionOptions, to: &result.actions)
            try result.validate()
        } catch {
            throw .invalidArgs(error.description)
        }
        return result
    }
}

extension String {
    /// The rest of the string after `prefix`, when it starts with it and the rest is not empty.
    func suffix(afterPrefix prefix: String) -> String? {
        guard hasPrefix(prefix), count > prefix.count else { return nil }
        return String(dropFirst(prefix.count))
    }
}
