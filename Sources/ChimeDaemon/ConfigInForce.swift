import ChimeCore

/// The user's config as chimed uses it, and what chimed made of its file when it last read
/// it: the categories and app settings in force, and the errors `Status` reports.
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
}
