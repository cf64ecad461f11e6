import ChimeCore
import Spelling

/// The user's config as chimed uses it, and what chimed made of its file when it last read
/// it: the categories and app settings in force, the errors `Status` reports, and which
/// category names a new request may give.
struct ConfigInForce {
    /// The file chimed reads, as it named it.
    let path: String
    /// The last reading of the file that could be used; nil before the first.
    private(set) var config: Config?
    /// Why the latest reading of the file could not be used, and what chimed does instead.
    private(set) var refusal: String?

    init(path: String) {
        self.path = path
    }

    /// The built-in categories, and the config's (which may redefine them).
    var categories: [String: Category] { config?.categories ?? Category.builtIn }

    /// The `[App DESKTOP-ID]` switches, by desktop entry id.
    var apps: [String: AppSettings] { config?.apps ?? [:] }

    /// When an all-day calendar item's day starts for its alarms (`[Calendars]`).
    var allDayTime: Config.TimeOfDay { config?.allDayTime ?? .midnight }
    var calendars: [String: Config.ConfiguredCalendar] { config?.calendars ?? [:] }
    var brokenCalendars: Set<String> { config?.brokenCalendars ?? [] }

    /// The file's errors now, a sentence each with file and line: the one that kept it
    /// from being read, or those of the groups it was read without.
    var errors: [String] {
        if let refusal { return [refusal] }
        return config?.errors.map(\.description) ?? []
    }

    /// Takes a new reading of the file; a failed one leaves the config in force as it was.
    mutating func take(_ reading: Result<Config, ConfigError>) {
        switch reading {
        case .success(let read):
            config = read
            refusal = nil
        case .failure(let error):
            refusal = config == nil ? "\(error) Using the built-in categories only." : "\(error) Keeping the last good config."
        }
    }

    // MARK: - The category of a request

    /// The categories of the Desktop Notifications specification (1.3, "Categories"),
    /// which a server may draw in its own way; Chime gives them no buttons and passes
    /// them on as the `category` hint.
    static let standardCategories: Set<String> = [
        "call", "call.ended", "call.incoming", "call.unanswered",
        "device", "device.added", "device.error", "device.removed",
        "email", "email.arrived", "email.bounced",
        "im", "im.error", "im.received",
        "network", "network.connected", "network.disconnected", "network.error",
        "presence", "presence.offline", "presence.online",
        "transfer", "transfer.complete", "transfer.error",
    ]

    /// Refuses a category a new request names unless it is built in, in the config, one
    /// of the specification's, or a vendor's own (`x-vendor.class.name`, as the
    /// specification asks others to write theirs).
    ///
    /// Only requests are checked: a stored notification whose category the config no
    /// longer has still fires, without those buttons. While no reading of the file could
    /// be used (it exists, but chimed could not read it since it started), which names
    /// it defines is not known, and none is refused.
    func check(category name: String) throws(FieldError) {
        // An empty one names no category: Update clears it so.
        guard !name.isEmpty, categories[name] == nil, !Self.standardCategories.contains(name), !name.hasPrefix("x-") else { return }
        guard let config else {
            if refusal != nil { return }
            throw unknown(name)
        }
        if let error = config.droppedCategories[name] {
            throw FieldError("category", "'\(name)' has an error in the config, so it is not used: \(error)")
        }
        throw unknown(name)
    }

    private func unknown(_ name: String) -> FieldError {
        let known = categories.keys.sorted()
        let guess = Spelling.nearest(to: name, among: known + Self.standardCategories.sorted())
        return FieldError("category", "'\(name)' is neither built in nor in the config (known: \(known.joined(separator: ", ")); "
            + "standard ones such as email.arrived are passed on to the server)" + (guess.map { "; did you mean '\($0)'?" } ?? "."))
    }
}
