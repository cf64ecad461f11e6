import ChimeCore
import Spelling
import FoundationEssentials

/// Turns the groups of a parsed key file into categories, buttons and app settings, and
/// names every error by line: the meaning of the config, where ``KeyFile`` is its syntax.
///
/// A mistake costs its own group, as systemd drops one bad unit setting and keeps the
/// unit: a bad `[Action KEY]` loses that button, a bad `[Category NAME]` that category
/// (the built-in one of that name stays), a bad `[App ID]` that app's settings. A button
/// a category lists that is missing (no such group, or one dropped for its error) costs
/// the category only that button: its other buttons still work, and the error names the key.
struct ConfigReader {
    let file: KeyFile
    private let lines: KeyFileLines
    private let path: String
    private var errors: [ConfigError] = []

    init(file: KeyFile, lines: KeyFileLines, path: String) {
        self.file = file
        self.lines = lines
        self.path = path
    }

    private enum Group {
        case category(String)
        case action(String)
        case app(String)
        case calendars
        case calendar(String)
    }

    /// The config the file defines, with each of its errors in the order of the file.
    mutating func read() -> Config {
        var categoryGroups: [(group: String, name: String)] = []
        var actions: [String: ActionDefinition] = [:]
        // Defined, even when broken: a category listing it is told of its error, not that it does not exist.
        var definedActions: [String: String] = [:]
        var apps: [String: AppSettings] = [:]
        var allDay = Config.TimeOfDay.midnight
        var calendars: [String: Config.ConfiguredCalendar] = [:], brokenCalendars: Set<String> = []
        for group in file.groups {
            switch classify(group) {
            case .category(let name)?:
                categoryGroups.append((group, name))
            case .action(let key)? where Config.builtInActions[key] != nil:
                definedActions[key] = group
                if let definition = builtIn(key, group: group) { actions[key] = definition }
            case .action(let key)?:
                definedActions[key] = group
                if let definition = action(key, group: group).flatMap({ translated($0, group: group) })
                    .flatMap({ withOptions($0, group: group) }) { actions[key] = definition }
            case .app(let id)?:
                if let settings = app(id, group: group) { apps[Self.appID(id)] = settings }
            case .calendars?:
                if let time = allDayTime(group: group) { allDay = time }
            case .calendar(let name)?:
                if let folder = calendarFolder(group: group) {
                    calendars[name] = Config.ConfiguredCalendar(folder: folder, line: lines.line(of: group))
                } else {
                    brokenCalendars.insert(name)
                }
            case nil:
                break
            }
        }
        var config = Config()
        config.apps = apps
        config.allDayTime = allDay
        (config.calendars, config.brokenCalendars) = (calendars, brokenCalendars)
        for (group, name) in categoryGroups {
            let before = errors.count
            if let read = category(name, group: group, actions: actions, defined: definedActions),
               let complete = withMinimalActions(read.category, group: group, actions: actions, missing: read.missing) {
                config.categories[name] = complete
            } else if Category.builtIn[name] == nil, errors.count > before, let error = errors.last {
                // The error that dropped it is the last: each check stops at its own.
                config.droppedCategories[name] = error
            }
        }
        config.relabelBuiltIns(with: actions)
        config.errors = errors.enumerated().sorted { ($0.element.line ?? 0, $0.offset) < ($1.element.line ?? 0, $1.offset) }.map(\.element)
        return config
    }

    private mutating func classify(_ group: String) -> Group? {
        if group == "Calendars" { return .calendars }
        for (prefix, make) in [("Category", Group.category), ("Action", Group.action), ("App", Group.app), ("Calendar", Group.calendar)] {
            guard group == prefix || group.hasPrefix(prefix + " ") else { continue }
            let name = group.dropFirst(prefix.count).trimmingSpaces
            guard !name.isEmpty else {
                fail(group, nil, "The \(prefix.lowercased()) name is empty: write [\(prefix) NAME].")
                return nil
            }
            return make(name)
        }
        fail(group, nil, "Chime knows no group [\(group)]: use [Category NAME], [Action KEY], [App DESKTOP-ID], [Calendar NAME] or [Calendars].")
        return nil
    }

    private mutating func action(_ key: String, group: String) -> ActionDefinition? {
        let allowed = Self.optionKeys.union(["Label", "Snooze", "Exec", "Timeout"] + localeKeys(group, of: "Label"))
        guard checkKeys(group, allowed: allowed) else { return nil }
        if key == "default" {
            fail(group, nil, "'default' is a click on the notification itself, not a button: choose another key.")
            return nil
        }
        guard let label = string(group, "Label") else { return nil }
        guard let label else {
            fail(group, nil, "Label is missing: every button needs the text it shows.")
            return nil
        }
        guard !label.trimmingSpaces.isEmpty else {
            fail(group, "Label", "Label is empty: every button needs the text it shows.")
            return nil
        }
        guard let snoozeText = string(group, "Snooze"), let exec = stringList(group, "Exec"),
              let timeoutText = string(group, "Timeout") else { return nil }
        if snoozeText != nil, exec != nil {
            fail(group, "Exec", "A button either snoozes or runs a command: give Snooze or Exec, not both.")
            return nil
        }
        if timeoutText != nil, exec == nil {
            fail(group, "Timeout", "Timeout limits a command: it needs Exec.")
            return nil
        }
        if let snoozeText {
            // A time of day (Snooze=tomorrow 9:00) is read when the button is pressed.
            do {
                return ActionDefinition(key: key, label: label, handler: .snooze(try SnoozeTime(parsing: snoozeText, field: "Snooze")))
            } catch {
                fail(group, "Snooze", error.description)
                return nil
            }
        }
        if let exec {
            guard let program = exec.first, !program.isEmpty else {
                fail(group, "Exec", "Exec is empty: give the program and its arguments, separated by ';'.")
                return nil
            }
            var timeout = Config.defaultTimeout
            if let timeoutText {
                guard let seconds = duration(timeoutText, group, "Timeout") else { return nil }
                timeout = seconds
            }
            return ActionDefinition(key: key, label: label, handler: .command(exec, timeout: timeout))
        }
        return ActionDefinition(key: key, label: label, handler: .announce)
    }

    /// The category of `group` and the keys its `Actions=` lists that are missing; nil (and
    /// an error) when a line of its own is wrong.
    private mutating func category(
        _ name: String, group: String, actions: [String: ActionDefinition], defined: [String: String]
    ) -> (category: Category, missing: Set<String>)? {
        guard checkKeys(group, allowed: ["Actions", "MinimalActions"]) else { return nil }
        guard let listed = stringList(group, "Actions") else { return nil }
        var definitions: [ActionDefinition] = []
        var missing: Set<String> = []
        for item in listed ?? [] {
            let key = item.trimmingSpaces
            // "a;;b" has an empty item; a trailing ';' is the format's own habit.
            guard !key.isEmpty else { continue }
            if definitions.contains(where: { $0.key == key }) || missing.contains(key) {
                fail(group, "Actions", "Actions lists '\(key)' twice.")
                return nil
            }
            if let definition = actions[key] ?? (defined[key] == nil ? Config.builtInActions[key] : nil) {
                definitions.append(definition)
            } else if key == "default" {
                fail(group, "Actions", "'default' is a click on the notification itself, not a button: remove it from Actions.")
                return nil
            } else if let actionGroup = defined[key] {
                missing.insert(key)
                let line = lines.line(of: actionGroup).map { " (line \($0))" } ?? ""
                fail(group, "Actions", "Actions lists '\(key)', whose [\(actionGroup)]\(line) has an error: the category shows "
                    + "its other buttons.")
            } else {
                missing.insert(key)
                let known = Array(Config.builtInActions.keys) + Array(defined.keys)
                let guess = Spelling.nearest(to: key, among: known).map { " (did you mean '\($0)'?)" } ?? ""
                fail(group, "Actions", "Actions lists '\(key)', which is not an action\(guess): define [Action \(key)], or use "
                    + "complete or remind; the category shows its other buttons.")
            }
        }
        return (Category(name: name, actions: definitions), missing)
    }

    /// `[Calendars]`: `AllDayTime=09:00`, when an all-day item's day starts for its alarms.
    private mutating func allDayTime(group: String) -> Config.TimeOfDay? {
        guard checkKeys(group, allowed: ["AllDayTime"]), let text = string(group, "AllDayTime"), let text else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]),
              (0...23).contains(hour), (0...59).contains(minute) else {
            fail(group, "AllDayTime", "AllDayTime is '\(text)': write a time of day from 00:00 to 23:59, such as 09:00.")
            return nil
        }
        return Config.TimeOfDay(hour: hour, minute: minute)
    }

    /// The folder of `[Calendar NAME]`: `Folder=`, absolute or under `~/`.
    private mutating func calendarFolder(group: String) -> String? {
        guard checkKeys(group, allowed: ["Folder"]), let text = string(group, "Folder") else { return nil }
        guard let text, !text.trimmingSpaces.isEmpty else {
            fail(group, nil, "Folder is missing: [\(group)] names the vdir folder to follow, as Folder=~/.calendars/NAME.")
            return nil
        }
        let path = text.trimmingSpaces
        if path == "~" || path.hasPrefix("~/") { return UserFolders.homeDirectory + path.dropFirst() }
        guard path.hasPrefix("/") else {
            fail(group, "Folder", "Folder is '\(path)': write an absolute path, or one under ~/.")
            return nil
        }
        return path
    }

    // MARK: Values

    /// False (and an error) when `group` has a key outside `allowed`.
    mutating func checkKeys(_ group: String, allowed: Set<String>) -> Bool {
        for key in file.keys(group) where !allowed.contains(key) {
            let known = allowed.sorted().joined(separator: ", ")
            fail(group, key, "[\(group)] has no key '\(key)': its keys are \(known).")
            return false
        }
        return true
    }

    /// `.some(nil)` when the key is absent; nil (and an error) when GLib refuses the value.
    mutating func string(_ group: String, _ key: String) -> String?? {
        switch file.string(group, key) {
        case .success(let value): return .some(value)
        case .failure(let message):
            fail(group, key, "\(key): \(message).")
            return nil
        }
    }

    mutating func stringList(_ group: String, _ key: String) -> [String]?? {
        switch file.stringList(group, key) {
        case .success(let value): return .some(value)
        case .failure(let message):
            fail(group, key, "\(key): \(message).")
            return nil
        }
    }

    private mutating func duration(_ text: String, _ group: String, _ key: String) -> TimeInterval? {
        do {
            return try WhenParser.duration(text, field: key)
        } catch {
            fail(group, key, "\(error.description)")
            return nil
        }
    }

    /// Records an error in `group`, at `key`'s line, or at the group's header without one.
    mutating func fail(_ group: String, _ key: String?, _ sentence: String) {
        let line = key.flatMap { lines.line(of: $0, in: group) } ?? lines.line(of: group)
        let prefix = sentence.hasPrefix("[\(group)]") ? "" : "[\(group)] "
        errors.append(ConfigError(path: path, line: line, message: prefix + sentence))
    }
}
