import JSON
import ArgumentParser
import ChimeAPI
import DBus
import Localization

/// One `chime notify` request, however it was parsed.
struct NotifyRequest: Equatable {
    var title: String
    var body: String = ""
    var urgency: String?
    var appName: String?
    var icon: String?
    var category: String?
    /// A sound-theme name, a sound file, `default` or `none`, read as `chime add --sound` reads it.
    var sound: String?
    var expireTime: Int32?
    var hints: [String] = []
    var actions: [String] = []
    /// What `-r` names: the id `-p` printed, or a server id (a number), as notify-send takes it.
    var replaceID: String?
    var transient = false
    var wait = false
    var printID = false
    /// Print one JSON object, `{"id", "action"}`, instead of plain lines.
    var json = false

    func validate() throws {
        for hint in hints where hint.split(separator: ":", maxSplits: 2).count < 3 {
            throw ValidationError(localized("malformed hint '%1$s': expected TYPE:NAME:VALUE, as in int:value:42.", hint))
        }
        for action in actions where action.isEmpty || action.hasPrefix("=") || action.hasSuffix("=") {
            throw ValidationError(localized("malformed action '%1$s': expected [KEY=]LABEL, as in done=Done.", action))
        }
        // What chimed reads as one (Presenter's replacement(named:)); its refusal would name its key, replaces.
        if let replaceID, UInt32(replaceID) == nil, !NotificationID.isWellFormed(replaceID) {
            throw ValidationError(localized("%1$s '%2$s' is neither an id chime notify -p printed nor a server id (a whole number).",
                                            TypedWords().spelling(of: ["-r", "--replace-id"]), replaceID))
        }
    }

    /// The `a{ss}` options of `PresentNowSimple`; chimed validates the values.
    var options: [(String, String)] {
        var options: [(String, String)] = []
        if let urgency { options.append(("urgency", urgency)) }
        if let appName { options.append(("appName", appName)) }
        if let icon { options.append(("image", icon)) }
        if let category { options.append(("category", category)) }
        if let sound { options.append(("sound", sound)) }
        if let expireTime { options.append(("expires", String(expireTime))) }
        if let replaceID { options.append(("replaces", replaceID)) }
        for hint in hints {
            let parts = hint.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            options.append(("hint." + parts[1], parts[0] + ":" + parts[2]))
        }
        if transient { options.append(("hint.transient", "boolean:true")) }
        for (index, action) in actions.enumerated() {
            if let equals = action.firstIndex(of: "=") {
                options.append(("action." + action[..<equals], String(action[action.index(after: equals)...])))
            } else {
                options.append(("action.\(index)", action))
            }
        }
        return options
    }

    /// Sends the notification; with `wait`, blocks until it is pressed or closed.
    func send() throws {
        let client: ChimedClient
        do { client = try ChimedClient.connect() } catch { throw fail(error.message, ExitStatus.unavailable) }

        var outcome: ExitCode?
        var id: String?
        // The unique name of the chimed that answered: any client can send a signal
        // straight to us, and only that chimed's ActionInvoked and Closed count.
        var daemon: String?
        var pressed: String?
        var subscriptions: [Subscription] = []
        if wait {
            // Subscribe before the call, so a press that comes at once is not missed.
            do {
                subscriptions.append(client.subscribe(Scheduler1.actionInvoked) { message in
                    guard message.sender == daemon, let args = try? message.arguments(), args.count >= 2,
                          args[0].stringValue == id, let key = args[1].stringValue else { return }
                    if json { pressed = key } else { print(HumanText.escaped(key)) }
                    outcome = .success
                })
                subscriptions.append(client.subscribe(Scheduler1.closed) { message in
                    guard message.sender == daemon, let args = try? message.arguments(), args.first?.stringValue == id else { return }
                    outcome = .success
                })
                subscriptions.append(try client.whenDaemonExits {
                    outcome = fail(localized("chimed stopped before the notification was closed."), ExitStatus.unavailable)
                })
            } catch {
                throw fail(error)
            }
        }

        let arguments: [Value] = [.string(title), .string(body), .stringDictionary(options)]
        do {
            let reply = try client.callForReply(Scheduler1.presentNowSimple, arguments)
            id = try reply.arguments().first?.stringValue
            daemon = reply.sender
        } catch {
            throw client.failure(error, calling: Scheduler1.presentNowSimple)
        }
        if json, !wait { printJSON(id: id, action: nil) }
        if printID, !json, let id { print(HumanText.escaped(id)) }
        guard wait else { return }

        flushStandardOutput()
        while outcome == nil {
            guard client.connection.readWriteDispatch(timeoutMilliseconds: -1) else {
                throw fail(localized("The session bus closed while waiting."), ExitStatus.unavailable)
            }
        }
        withExtendedLifetime(subscriptions) {}
        if let outcome, outcome != .success { throw outcome }
        if json { printJSON(id: id, action: pressed) }
    }

    /// The `--json` output: the id, and the pressed key (null when none was, or without --wait).
    private func printJSON(id: String?, action: String?) {
        print(JSONText.object([("id", .string(id)), ("action", .string(action))]).rendered())
    }
}
