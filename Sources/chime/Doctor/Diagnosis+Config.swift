import ChimeAPI
import JSON
import Localization

// MARK: - The user's config, as chimed read it

extension Diagnosis {
    /// The config file chimed reads, what it took from it, and each error it found there
    /// (`Status`). chimed is the one reader: doctor shows what is in force, not what the
    /// file would give if it were read now.
    struct ConfigFile {
        var path: String
        var categories: [String]?
        var appSettings: UInt32?
        /// A sentence each, naming file and line, in English as chimed wrote them.
        var errors: [String]

        /// The config part of `status`; nil from a chimed that does not report it.
        init?(_ status: DaemonStatus) {
            guard let path = status.config else { return nil }
            self.path = path
            categories = status.categories
            appSettings = status.appSettings
            errors = status.configErrors ?? []
        }

        var rows: [(String, String)] {
            var rows = [(localized("file"), path)]
            if let categories {
                let label = localized("categories")
                // TRANSLATORS: %1$d is how many categories of buttons chimed has, %2$s their names.
                rows.append((label, localized("%1$d: %2$s", categories.count, categories.joined(separator: ", "))))
            }
            if let appSettings {
                rows.append((localized("app settings"), appSettings == 0 ? localized("for no app")
                    : pluralized("for %1$d app", "for %1$d apps", count: Int(appSettings), appSettings)))
            }
            // TRANSLATORS: a label in chime doctor's Config section, before an error chimed found in the config, in English.
            rows += errors.map { (localized("error"), $0) }
            return rows
        }

        var json: JSONText {
            .object([
                ("file", .string(path)), ("categories", .strings(categories)),
                ("appSettings", .integer(appSettings)), ("errors", .strings(errors)),
            ])
        }
    }

    /// Takes the config part of chimed's `Status`: each error keeps doctor unhealthy,
    /// since what it names does not work until the file is fixed and read again.
    mutating func checkConfig(_ status: DaemonStatus, pid: UInt32?) {
        guard let config = ConfigFile(status) else { return }
        self.config = config
        guard !config.errors.isEmpty else { return }
        let count = config.errors.count
        problems.append(Note {
            pid.map {
                pluralized("The config has %1$d error, listed under Config: what it names is left out. Fix it, then have chimed read the file again: 'systemctl --user reload chimed.service' (or 'kill -HUP %2$s').",
                           "The config has %1$d errors, listed under Config: what they name is left out. Fix them, then have chimed read the file again: 'systemctl --user reload chimed.service' (or 'kill -HUP %2$s').",
                           count: count, count, $0)
            } ?? pluralized("The config has %1$d error, listed under Config: what it names is left out. Fix it, then have chimed read the file again: 'systemctl --user reload chimed.service'.",
                            "The config has %1$d errors, listed under Config: what they name is left out. Fix them, then have chimed read the file again: 'systemctl --user reload chimed.service'.",
                            count: count, count)
        })
    }
}
