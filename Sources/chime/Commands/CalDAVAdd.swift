import ArgumentParser
import ChimeAPI
import DBus
import Glibc
import JSON
import Localization

/// `chime calendar add URL --user NAME`: finds the account's calendars through chimed,
/// lets the user choose, and follows each chosen one.
struct CalDAVAdd {
    let command: CalendarCommand.Add
    let url: String
    let user: String

    init(_ command: CalendarCommand.Add) {
        self.command = command
        url = command.url ?? ""
        user = command.user ?? ""
    }

    func run() throws {
        let client = try ChimedClient.connectOrFail()
        let followed = try client.calendars()
        let account = try accountOptions()
        let reply = try client.callOrFail(Scheduler1.discoverCalendars, [.string(url), .variantDictionary(account)],
                                          timeoutMilliseconds: ChimedClient.serverTimeoutMilliseconds)
        var found = (reply.first?.arrayElements ?? []).compactMap(\.stringKeyedEntries).compactMap(FoundCalendar.init)
        for index in found.indices {
            found[index].followedAs = followed.first { $0.isCalDAV && Self.sameLocation($0.location, found[index].location) }?.name
        }
        guard !found.isEmpty else {
            throw fail(localized("The server at %1$s has no calendar for %2$s.", CalDAVAddress.host(url), user), ExitStatus.failure)
        }
        let asking = command.calendars.isEmpty && !command.all && found.count > 1
        if !command.json || asking { show(found, on: command.json ? 2 : 1) }

        var chosen = try choose(found, asking: asking).map { found[$0] }
        for calendar in chosen {
            guard let name = calendar.followedAs else { continue }
            // TRANSLATORS: %1$s is a calendar's display name, %2$s the name Chime follows it by.
            writeError(localized("%1$s is followed already, as %2$s.", calendar.title, name))
        }
        chosen.removeAll { $0.followedAs != nil }
        guard !chosen.isEmpty else {
            if command.json { print(JSONText.array([]).rendered()) }
            return
        }
        if let name = command.name, chosen.count > 1 {
            throw fail(localized("--name '%1$s' names one calendar, and %2$d were chosen; each is followed by its own name.", name, chosen.count),
                       ExitStatus.usage)
        }
        let names = command.name.map { [$0] } ?? CalendarChoice.names(for: chosen, taken: followed.map(\.name))

        var added: [CalendarText] = []
        for (calendar, name) in zip(chosen, names) {
            var options = account
            options.append((CalendarKey.name.rawValue, .string(name)))
            options.append((CalendarKey.shareDismissals.rawValue, .bool(!command.keepDismissalsLocal)))
            if let interval = command.interval { options.append((CalendarKey.interval.rawValue, .uint32(UInt32(interval)))) }
            let reply: [Value]
            do {
                reply = try client.call(Scheduler1.addCalendar, [.string(calendar.location), .variantDictionary(options)],
                                        timeoutMilliseconds: ChimedClient.serverTimeoutMilliseconds)
            } catch {
                // Those added before stay followed: a script reading the JSON hears of them.
                if command.json { print(JSONText.array(added.map(\.json)).rendered()) }
                throw client.failure(error, calling: Scheduler1.addCalendar)
            }
            guard let entries = reply.first?.stringKeyedEntries else {
                throw fail(localized("chimed answered %1$s with something other than its interface says.", "AddCalendar"), ExitStatus.failure)
            }
            let calendar = CalendarText(entries)
            added.append(calendar)
            if !command.json { print(calendar.followingLine) }
            flushStandardOutput()
            for problem in calendar.problems { writeError(problem) }
            if let error = calendar.error {
                writeError(error)
                writeError(hint(for: calendar))
            }
        }
        if command.json { print(JSONText.array(added.map(\.json)).rendered()) }
        if added.contains(where: { $0.error != nil }) { throw ExitStatus.notSynced }
    }

    /// The options DiscoverCalendars and AddCalendar share: the user, and the password or
    /// the command that prints it, and the CAs to trust.
    private func accountOptions() throws -> [(String, Value)] {
        var options: [(String, Value)] = [(CalendarKey.user.rawValue, .string(user))]
        if let passwordCommand = command.passwordCommand {
            options.append(("passwordCommand", .string(passwordCommand)))
        } else {
            // TRANSLATORS: %1$s is the user, %2$s the server, as cloud.example.org.
            let password = try command.password.read(prompt: localized("Password for %1$s at %2$s: ", user, CalDAVAddress.host(url)))
            options.append(("password", .string(password)))
        }
        if let ca = command.ca { options.append(("ca", .string(absolutePath(ca)))) }
        return options
    }

    /// The calendars found, numbered, on standard output (1) or standard error (2).
    private func show(_ found: [FoundCalendar], on descriptor: Int32) {
        // TRANSLATORS: %1$s is the user, %2$s the server, as cloud.example.org.
        var lines = [localized("Calendars of %1$s at %2$s:", user, CalDAVAddress.host(url))]
        let names = found.map { HumanText.escaped($0.title) }, contents = found.map(\.contents)
        let nameWidth = names.map(\.count).max() ?? 0, contentWidth = contents.map(\.count).max() ?? 0
        let numberWidth = String(found.count).count
        for (index, calendar) in found.enumerated() {
            let number = String(index + 1)
            lines.append("  " + String(repeating: " ", count: numberWidth - number.count) + number + "  "
                         + names[index] + String(repeating: " ", count: nameWidth - names[index].count) + "  "
                         + contents[index] + String(repeating: " ", count: contentWidth - contents[index].count) + "  "
                         + HumanText.escaped(calendar.location))
        }
        var text = lines.joined(separator: "\n") + "\n"
        flushStandardOutput()
        text.withUTF8 { _ = write(descriptor, $0.baseAddress, $0.count) }
    }

    /// The places in `found` of the calendars to follow, as the options say or the user answers.
    private func choose(_ found: [FoundCalendar], asking: Bool) throws -> [Int] {
        if !command.calendars.isEmpty {
            do { return try CalendarChoice.named(command.calendars, in: found) } catch { throw fail(error.sentence, ExitStatus.usage) }
        }
        if command.all {
            let holding = found.indices.filter { found[$0].holdsReminders }
            guard !holding.isEmpty else {
                throw fail(localized("None of the calendars found holds events or tasks, so none was followed."), ExitStatus.failure)
            }
            return holding
        }
        guard asking else { return [0] }
        guard isatty(0) != 0 else {
            throw fail(pluralized("%1$d calendar was found; give --calendar NAME (once for each to follow) or --all.",
                                  "%1$d calendars were found; give --calendar NAME (once for each to follow) or --all.",
                                  count: found.count, found.count), ExitStatus.usage)
        }
        // TRANSLATORS: the answer that picks every calendar found.
        let every = localized("all")
        while true {
            // TRANSLATORS: %1$s is the answer that picks every calendar ("all").
            var prompt = localized("Which to follow? Numbers, such as 1,3, or %1$s: ", every)
            prompt.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
            guard let answer = readLine() else {
                throw fail(localized("Nothing chosen, so no calendar was followed."), ExitStatus.failure)
            }
            if let picked = CalendarChoice.answer(answer, count: found.count) { return picked }
            // TRANSLATORS: %2$s is the answer that picks every calendar ("all").
            writeError(localized("Answer with numbers from 1 to %1$d, such as 1,3, or with %2$s.", found.count, every))
        }
    }

    /// What to do about a calendar whose first sync failed.
    private func hint(for calendar: CalendarText) -> String {
        guard calendar.needsUser else {
            return localized("%1$s is followed all the same; chimed tries again at its next sync, and 'chime calendar sync %1$s' tries now.",
                             calendar.name)
        }
        if command.passwordCommand != nil {
            return localized("%1$s is followed all the same; once that is mended, 'chime calendar sync %1$s' syncs it.", calendar.name)
        }
        return localized("%1$s is followed all the same; 'chime calendar password %1$s' gives it another password, and 'chime calendar sync %1$s' syncs it once the cause is mended.",
                         calendar.name)
    }

    /// Whether two addresses are one collection's: the same but for a last slash.
    static func sameLocation(_ a: String, _ b: String) -> Bool {
        func trimmed(_ text: String) -> Substring {
            var text = Substring(text)
            while text.hasSuffix("/") { text.removeLast() }
            return text
        }
        return trimmed(a) == trimmed(b)
    }
}
