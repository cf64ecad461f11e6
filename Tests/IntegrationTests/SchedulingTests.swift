import Foundation
import Testing
import TestSupport

/// Scheduling through the real chimed, with the real clock and short delays.
@Suite(.timeLimit(.minutes(10)))
struct SchedulingTests {
    /// The `lateBy` of a Fired signal line, in seconds.
    func lateBy(_ line: String) -> Double? {
        guard let range = line.range(of: "'lateBy': <") else { return nil }
        return Double(line[range.upperBound...].prefix { $0 != ">" })
    }

    @Test func firesOnTime() throws {
        let session = try TestSession()
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        let monitor = try SignalMonitor(session: session)
        let id = try session.add("Tea", "Steeped", "--in", "2s")

        let fired = try monitor.waitForLine(containing: "Fired ('\(id)'")
        let late = try #require(lateBy(fired))
        #expect(late >= 0 && late < 1, "fired \(late) s after its time")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Tea'>, <'Steeped'>"))
        // A one-shot that fired leaves the schedule but keeps its history.
        #expect(try session.run(["chime", "list"]).stdout == "Nothing scheduled.\n")
        let shown = try session.run(["chime", "show", id])
        #expect(shown.stdout.contains("state:") && shown.stdout.contains("done"), "\(shown)")
        let firedLine = shown.stdout.split(separator: "\n").first { $0.hasPrefix("fired:") }
        #expect(firedLine?.contains(" once, ") == true, "\(shown)")
    }

    /// At debug level each batch says where its time went on chimed's side; `make bench`
    /// reads these lines for its per-stage figures.
    @Test func aBatchFiredSaysWhereItsTimeWent() throws {
        let session = try TestSession()
        // Two due at the same whole second, at least 4 s ahead (a loaded machine may stall
        // between the two adds), fire as one batch.
        let due = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 5).rounded(.down)))
        _ = try session.add("One", "--at", due)
        _ = try session.add("Two", "--at", due)
        let log = try session.waitForDaemonLog(containing: "Fired 2: ")
        let line = try #require(log.split(separator: "\n").first { $0.contains("Fired 2: ") })
        let match = try #require(line.firstMatch(
            of: /Fired 2: woke (\d+\.\d\d) ms after due; first delivered (\d+\.\d\d) ms after waking, last (\d+\.\d\d) ms; done (\d+\.\d\d) ms after waking\./),
            "\(line)")
        let (woke, firstOut, lastOut, done) = (Double(match.1)!, Double(match.2)!, Double(match.3)!, Double(match.4)!)
        #expect(woke < 1000 && firstOut <= lastOut && lastOut <= done, "\(line)")
        _ = try session.waitForNotifyCalls(2)
    }

    @Test func survivesKillMinus9AndStillFiresOnTime() throws {
        let session = try TestSession()
        let id = try session.add("Survivor", "--in", "4s")
        let pid = try session.daemonPID()
        try session.killDaemon()

        // The next call starts a new chimed through activation.
        let list = try session.run(["chime", "list"])
        #expect(list.stdout.contains(id), "\(list)")
        #expect(list.stdout.contains("Survivor"))
        #expect(try session.daemonPID() != pid)
        let monitor = try SignalMonitor(session: session)
        let fired = try monitor.waitForLine(containing: "Fired ('\(id)'")
        #expect((lateBy(fired) ?? 99) < 1, "\(fired)")
    }

    @Test func missedWhileStoppedFiresOnceMarkedLate() throws {
        let session = try TestSession()
        let id = try session.add("Missed", "while off", "--in", "1s")
        let due = Date().addingTimeInterval(1)
        try session.killDaemon(signal: SIGTERM)
        // Time has to pass for a notification to be missed: there is no event to await.
        Thread.sleep(until: due.addingTimeInterval(4))

        #expect(try session.run(["chime", "list"]).status == 0)
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Missed'>"))
        #expect(call.contains("ago."), "the body says how late: \(call)")
        #expect(call.contains("'x-chime-late-seconds': <"), "\(call)")
        let shown = try session.run(["chime", "show", id])
        #expect(shown.stdout.contains("done"))
        // Once only: nothing more arrives.
        #expect(try session.notifyCalls().count == 1)
    }

    @Test func repeatFiresOnceForMissedOccurrencesThenKeepsItsCadence() throws {
        let session = try TestSession()
        // Started 3 min 57 s ago, every minute: four occurrences are past, and --allow-past
        // keeps them, as occurrences missed while chimed was stopped are kept.
        let start = Date().addingTimeInterval(-(3 * 60 + 57)).rounded()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Stretch", "--at", iso(start), "--repeat", "minute", "--allow-past")

        let first = try monitor.waitForLine(containing: "Fired ('\(id)'")
        #expect((lateBy(first) ?? 0) > 2, "the missed occurrences fire once, late: \(first)")
        let get = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                   "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Get", id])
        // The next one keeps the cadence: start + 4 minutes, not now + 1 minute.
        #expect(get.stdout.contains("'nextFire': <int64 \(Int(start.timeIntervalSince1970) + 240)>"), "\(get)")

        let second = try monitor.waitForLine(containing: "'fireCount': <uint32 2>")
        #expect((lateBy(second) ?? 99) < 1, "\(second)")
        #expect(try session.waitForNotifyCalls(2).count == 2)
    }

    /// A wrong year is the likeliest typo: a one-shot in the past is refused, in words
    /// people use, naming the option typed, and nothing is stored or shown.
    @Test func aOneShotInThePastIsRefusedAndNothingIsStored() throws {
        let session = try TestSession()
        let due = try session.instant(wallClock: "2020-01-01 10:00")
        let refused = try session.run(["chime", "add", "Typo", "--at", "2020-01-01 10:00"])
        #expect(refused.status == 64 && refused.stdout.isEmpty, "\(refused)")
        #expect(refused.stderr == "chime: --at 2020-01-01 10:00 is \(session.yearsSince(due)) years ago; to show it now use chime notify.\n",
                "\(refused)")
        #expect(try session.run(["chime", "list", "--json"]).stdout == "[]\n")
        #expect(try session.run(["chime", "log"]).stdout == "Nothing has happened yet.\n")
        #expect(try session.notifyCalls().isEmpty)

        // --allow-past goes with a time that can be past.
        let misplaced = try session.run(["chime", "add", "Tea", "--in", "5m", "--allow-past"])
        #expect(misplaced.status == 64 && misplaced.stderr.contains("--allow-past goes with --at"), "\(misplaced)")
    }

    /// Bus callers get the same protection, the key named, and the past when they ask for it.
    @Test func aBusCallerIsRefusedThePastUnlessItSetsLate() throws {
        let session = try TestSession()
        let typed = try session.callScheduler("Schedule", "{'title': <'Typo'>, 'when': <'2020-01-01 10:00'>}")
        #expect(typed.status != 0, "\(typed)")
        #expect(typed.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs: when: 2020-01-01 10:00 is ")
                && typed.stderr.contains(" years ago; set late to true"), "\(typed)")
        let simple = try session.run(["dbus-send", "--session", "--print-reply", "--dest=io.github.chime.Chime", "/io/github/chime/Chime",
                                      "io.github.chime.Scheduler1.ScheduleSimple", "string:2020-01-01 10:00", "string:Typo", "string:",
                                      "dict:string:string:late,true"])
        #expect(simple.status == 0, "\(simple)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Typo'>") && call.contains(" years ago."), "\(call)")
    }

    /// `today` alone would be now: refused, with what to write. `now` is meant, fires at
    /// once, on time, and `chime add` still says when rather than printing a bare id.
    @Test func todayAloneIsRefusedAndNowIsConfirmedWithItsTime() throws {
        let session = try TestSession()
        let today = try session.run(["chime", "add", "Call", "--at", "today"])
        #expect(today.status == 64 && today.stderr.contains("'today' needs a time of day, as in 'today 18:00'"), "\(today)")
        let now = try session.run(["chime", "add", "Call", "--at", "now"])
        #expect(now.status == 0, "\(now)")
        #expect(now.stdout.firstMatch(of: /^[0-9a-z]{8}  \S.* \(due now\)\n$/) != nil, "\(now)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(call.contains("<'Call'>") && !call.contains("ago."), "on time: \(call)")
    }

    /// A time typed in the minute it names (a little behind the clock by the time it
    /// arrives) is now: it fires at once and is not late.
    @Test func aTimeWithinTheLastMinuteIsNowAndNotLate() throws {
        let session = try TestSession()
        let monitor = try SignalMonitor(session: session, startDaemon: true)
        let id = try session.add("Just now", "--at", iso(Date().addingTimeInterval(-30).rounded()))
        let fired = try monitor.waitForLine(containing: "Fired ('\(id)'")
        #expect((lateBy(fired) ?? 99) < 2, "\(fired)")
        let call = try #require(try session.waitForNotifyCalls(1).first)
        #expect(!call.contains("ago.") && !call.contains("x-chime-late-seconds"), "\(call)")
    }

    @Test func cancelByIdMatchAndAll() throws {
        let session = try TestSession()
        let a = try session.add("A", "--in", "1h", "--user-info", "plant=fern")
        _ = try session.add("B", "--in", "2h", "--user-info", "plant=fern")
        _ = try session.add("C", "--in", "3h", "--user-info", "plant=cactus")
        let d = try session.add("D", "--at", "tomorrow 9:00", "--repeat", "day")

        let listed = try session.run(["chime", "list"]).stdout.split(separator: "\n")
        #expect(listed.count == 5, "\(listed)")
        #expect(listed[0].hasPrefix("ID"))
        #expect(listed[1].hasPrefix(a))
        #expect(listed.last?.contains("every day") == true)

        #expect(try session.run(["chime", "cancel", "--match", "plant=fern"]).stdout == "Cancelled 2.\n")
        #expect(try session.run(["chime", "cancel", d]).status == 0)
        let missing = try session.run(["chime", "cancel", d])
        #expect(missing.status == 1)
        #expect(missing.stderr == "chime: No notification has the id '\(d)'.\n")
        #expect(try session.run(["chime", "cancel", "--all", "--yes"]).stdout == "Cancelled 1.\n")
        #expect(try session.run(["chime", "list", "--json"]).stdout == "[]\n")
    }

    /// A cancel of everything drops the schedule's pages whole, answers, then rebuilds the
    /// file: the cancelled reminders' words leave it (none in a free page, none in the WAL),
    /// what already fired stays, and firing goes on.
    @Test func cancellingEverythingTakesItOutOfTheFileAndFiringGoesOn() throws {
        let session = try TestSession()
        _ = try session.add("Fired before", "--in", "1s")
        _ = try session.waitForNotifyCalls(1)
        try session.addReminders(150)
        #expect(try session.run(["chime", "cancel", "--all", "--yes"]).stdout == "Cancelled 150.\n")
        try session.waitForDaemonLog(containing: "Compacted the store after a cancel of nearly everything")
        let file = try Data(contentsOf: session.storeFile)
        #expect(file.range(of: Data("Reminder 1".utf8)) == nil, "a cancelled reminder is still in the file")
        #expect(file.range(of: Data("Fired before".utf8)) != nil)
        let wal = try? FileManager.default.attributesOfItem(atPath: session.storeFile.path + "-wal")[.size] as? Int
        #expect((wal ?? 0) == 0)
        #expect(try session.run(["chime", "log", "--limit", "1"]).stdout.contains("150 notifications"))

        _ = try session.add("After", "--in", "1s")
        let calls = try session.waitForNotifyCalls(2)
        #expect(calls.count == 2 && calls[1].contains("After"), "\(calls)")
    }

    @Test func listJsonCarriesEveryField() throws {
        let session = try TestSession()
        let id = try session.add("Plants", "Water them", "--at", "2030-01-31 08:00", "--repeat", "month", "--badge", "2",
                         "--sound", "none", "--user-info", "n=1", "--late-limit", "10m", "--zone", "America/New_York")
        let json = try session.run(["chime", "list", "--json"]).stdout
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let item = try #require(list.first)
        #expect(item["id"] as? String == id)
        #expect(item["when"] as? String == "2030-01-31T08:00:00[America/New_York]")
        #expect(item["repeat"] as? String == "month")
        #expect(item["badge"] as? Int == 2)
        #expect(item["lateLimit"] as? Double == 600)
        #expect(item["sound"] as? String == "none")
        #expect((item["userInfo"] as? [String: Any])?["n"] as? String == "1")
        // 08:00 in New York is 14:00 in Berlin, the session's zone.
        #expect(item["nextFireLocal"] as? String == "2030-01-31T14:00:00+01:00")
    }

    @Test func nextPrintsMonthEndsFromTheFirstOccurrence() throws {
        let session = try TestSession()
        // --json: the times with their offsets, whatever the locale.
        let result = try session.run(["chime", "next", "2030-01-31", "09:00", "--repeat", "month", "--count", "4", "--json"])
        #expect(result.status == 0, "\(result)")
        let times = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(times.map { $0["time"] as? String } == [
            "2030-01-31T09:00:00+01:00",
            "2030-02-28T09:00:00+01:00",
            "2030-03-31T09:00:00+02:00",
            "2030-04-30T09:00:00+02:00",
        ])
    }

    @Test func repeatTakesAdverbsAndCountsAsWellAsUnits() throws {
        let session = try TestSession()
        _ = try session.add("Pills", "--at", "2030-01-31 09:00", "--repeat", "daily")
        _ = try session.add("Bins", "--at", "2030-01-31 07:00", "--repeat", "2 weeks")
        let typed = try session.run(["gdbus", "call", "--session", "--dest", "io.github.chime.Chime", "--object-path",
                                     "/io/github/chime/Chime", "--method", "io.github.chime.Scheduler1.Schedule",
                                     "{'title': <'Plants'>, 'when': <'2030-01-31 08:00'>, 'repeat': <'Weekly'>}"])
        #expect(typed.status == 0, "\(typed)")
        let json = try session.run(["chime", "list", "--json"]).stdout
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let rules = list.map { "\($0["title"] ?? ""): \($0["repeat"] ?? "") \($0["every"] ?? "")" }
        #expect(rules == ["Bins: week 2", "Plants: week 1", "Pills: day 1"])

        let next = try session.run(["chime", "next", "2030-01-31", "09:00", "--repeat", "daily", "--count", "3", "--json"])
        #expect(next.status == 0, "\(next)")
        let times = try #require(try JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [[String: Any]])
        #expect(times.map { $0["time"] as? String } == [
            "2030-01-31T09:00:00+01:00", "2030-02-01T09:00:00+01:00", "2030-02-02T09:00:00+01:00",
        ])

        // A count in the repeat and another in --every: which one was meant is not guessed.
        let both = try session.run(["chime", "add", "Bad", "--at", "9:00", "--repeat", "2 weeks", "--every", "3"])
        #expect(both.status == 64, "\(both)")
        #expect(both.stderr == "chime: --every cannot be combined with --repeat '2 weeks', which has a count of its own.\n", "\(both)")
    }

    @Test(arguments: [
        (["--at", "25:00"], "25:00"),
        (["--at", "2030-02-30 10:00"], "2030-02-30 10:00"),
        (["--at", "9:00", "--zone", "Mars/Olympus_Mons"], "Mars/Olympus_Mons"),
        (["--at", "9:00", "--repeat", "day", "--calendar", "klingon"], "klingon"),
        (["--at", "9:00", "--repeat", "day", "--every", "0"], "every"),
        (["--at", "9:00", "--repeat", "fortnight"], "fortnight"),
        (["--in", "20m", "--badge", "-1"], "badge"),
        (["--in", "soon"], "soon"),
    ])
    func badRequestsLeaveTheScheduleAlone(arguments: [String], mention: String) throws {
        let session = try TestSession()
        let kept = try session.add("Kept", "--in", "1h")
        let result = try session.run(["chime", "add", "Bad"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains(mention), "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        let list = try session.run(["chime", "list"]).stdout.split(separator: "\n")
        #expect(list.count == 2 && list[1].hasPrefix(kept), "\(list)")
    }

    @Test func typedScheduleRejectsUnsupportedUserInfoAndUnknownIds() throws {
        let session = try TestSession()
        let target = ["--session", "--dest", "io.github.chime.Chime", "--object-path", "/io/github/chime/Chime", "--method"]
        let bad = try session.run(["gdbus", "call"] + target + ["io.github.chime.Scheduler1.Schedule",
                                   "{'title': <'T'>, 'when': <'in 5m'>, 'userInfo': <{'list': <[1, 2]>}>}"])
        #expect(bad.stderr.contains("InvalidArgs: userInfo.list: has type 'ai'"), "\(bad)")
        let get = try session.run(["gdbus", "call"] + target + ["io.github.chime.Scheduler1.Get", "nosuchid"])
        #expect(get.stderr.contains("io.github.chime.Error.NotFound: No notification has the id 'nosuchid'."), "\(get)")
        let typed = try session.run(["gdbus", "call"] + target + ["io.github.chime.Scheduler1.Schedule",
                                     "{'title': <'T'>, 'when': <'tomorrow 9:00'>, 'repeat': <'day'>, 'every': <2>, 'lateLimit': <'5m'>}"])
        #expect(typed.status == 0, "\(typed)")
    }

    @Test func storeIsPrivateAndOneDaemonPerDirectory() throws {
        let session = try TestSession()
        _ = try session.add("Private", "--in", "1h")
        let directory = session.dataDirectory.path
        let attributes = try FileManager.default.attributesOfItem(atPath: directory)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
        let file = try FileManager.default.attributesOfItem(atPath: directory + "/chime.sqlite")
        #expect((file[.posixPermissions] as? Int) == 0o600)

        // A second session (another bus) pointed at the same data directory.
        let other = try TestSession(capabilities: nil)
        var env = other.environment
        env["XDG_DATA_HOME"] = session.dataDirectory.deletingLastPathComponent().path
        let second = try Spawned([binDirectory.appendingPathComponent("chimed").path], environment: env).finish()
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("Another chimed is already using \(directory)"), "\(second)")
    }

    @Test func aStoreThatIsNoDatabaseIsKeptAsideAndAFreshOneStarted() throws {
        let session = try TestSession()
        try FileManager.default.createDirectory(at: session.dataDirectory, withIntermediateDirectories: true)
        try Data(repeating: 0x5a, count: 4096).write(to: session.dataDirectory.appendingPathComponent("chime.sqlite"))
        let list = try session.run(["chime", "list"])
        #expect(list.stdout == "Nothing scheduled.\n", "\(list)")
        let files = try FileManager.default.contentsOfDirectory(atPath: session.dataDirectory.path)
        let aside = try #require(files.first { $0.hasPrefix("chime.sqlite.damaged-") })
        #expect(try Data(contentsOf: session.dataDirectory.appendingPathComponent(aside)) == Data(repeating: 0x5a, count: 4096))
        // chimed's log reaches the test through a pipe: the reply to list may come first.
        try session.waitForDaemonLog(containing: "the damaged file is kept as")
        #expect(try session.waitForNotifyCalls(1).first?.contains("Chime could not recover its reminders") == true)
        _ = try session.add("Fresh", "--in", "1h")
    }
}

extension Date {
    /// To the whole second, as the store's integer views of it are.
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}

/// Behaviour across restarts that needs chimed started by hand.
@Suite(.timeLimit(.minutes(10)))
struct RestartTests {
    @Test func manyMissedArriveAsOneSummary() throws {
        let session = try TestSession()
        // One instant for all five, far enough ahead that none fires before chimed stops,
        // even when a loaded machine takes seconds over the five adds.
        let due = Date(timeIntervalSince1970: Date().addingTimeInterval(10).timeIntervalSince1970.rounded(.up))
        for title in ["One", "Two", "Three", "Four", "Five"] {
            #expect(try session.run(["chime", "add", title, "--at", iso(due)]).status == 0)
        }
        try session.killDaemon(signal: SIGTERM)
        try #require(Date() < due, "chimed stopped only after the five were due")
        // Time has to pass for notifications to be missed.
        Thread.sleep(until: due.addingTimeInterval(3))
        let list = try session.run(["chime", "list"])
        #expect(list.stdout == "Nothing scheduled.\n", "\(list) \(session.daemonLog)")
        let calls = try session.waitForNotifyCalls(1)
        #expect(calls.count == 1, "one summary, not a storm: \(calls)")
        #expect(calls[0].contains("<'5 reminders while you were away'>"))
        #expect(calls[0].contains("• One"))
    }

    @Test func floatingFollowsTheSystemZoneAndZonedStays() throws {
        let session = try TestSession()
        let floating = try session.add("Alarm", "--at", "2030-01-01 09:00")
        let zoned = try session.add("Call", "--at", "2030-01-01 09:00", "--zone", "America/New_York")
        let cancelled = try session.add("Cancelled", "--at", "2030-01-01 10:00")
        #expect(try session.run(["chime", "cancel", cancelled]).status == 0)
        try session.killDaemon()

        // The machine moved to Tokyo while chimed was down.
        var env = session.environment
        env["TZ"] = "Asia/Tokyo"
        let daemon = try Spawned([binDirectory.appendingPathComponent("chimed").path], environment: env)
        try session.waitForName("io.github.chime.Chime")
        let json = try session.run(["chime", "list", "--json"]).stdout
        let list = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: list.compactMap { item in (item["id"] as? String).map { ($0, item) } })
        // The alarm clock still rings at 09:00, now Tokyo time.
        #expect(byID[floating]?["nextFireLocal"] as? String == "2030-01-01T09:00:00+09:00")
        // 09:00 in New York is 23:00 in Tokyo.
        #expect(byID[zoned]?["nextFireLocal"] as? String == "2030-01-01T23:00:00+09:00")
        #expect(byID[cancelled] == nil && list.count == 2, "a cancelled one does not move back in: \(list)")
        daemon.stop()
    }
}
