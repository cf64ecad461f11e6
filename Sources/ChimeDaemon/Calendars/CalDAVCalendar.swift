import CLinux
import ChimeAPI
import ChimeCore
import DBus
import EventLoop
import FoundationEssentials
import Glibc
import ICS
import Logging
import WebDAV

/// A CalDAV collection (RFC 4791) synced both ways on chimed's loop: its items read into the
/// schedule as a folder's files are, and what the user presses written back into them.
///
/// A sync asks what changed since the last one (RFC 6578 `sync-collection` with its token;
/// a PROPFIND of ETags where the server has no token to give), fetches only that
/// (`calendar-multiget`, in chunks) and merges it, with the status of each item (its ETag and
/// a hash of its text, as vdirsyncer keeps them) in the same transaction. A press is queued
/// in the store first and sent as a patch of the item as the server has it now (`If-Match`;
/// on 412 read and patched again): a press made offline, or before a crash, is sent later.
///
/// Nothing the server says costs a reminder by accident: an item that cannot be read keeps
/// what it made; a collection that suddenly answers empty is believed only when a second
/// sync, an interval later, agrees; a server that cannot be reached leaves everything as it
/// is and is asked again, sooner at first and then less often.
final class CalDAVCalendar {
    /// Where the calendar stands.
    enum State: Equatable {
        /// Its first sync is under way.
        case syncing
        /// Synced; syncing again every interval.
        case synced
        /// The server cannot be reached now (the sentence says why); asked again soon.
        case offline(String)
        /// The server refuses (a password, a calendar gone or not ours): the user must act.
        case failed(String)
    }

    /// What one sync did.
    struct Report {
        var new = 0, updated = 0, removed = 0
        /// Presses written into their items.
        var sent = 0
        /// Why it did not end, when it did not.
        var error: String?
    }

    /// The calendar as stored.
    let calendar: CalendarSource
    private(set) var state = State.syncing
    /// The items not read, or read in part, each with its sentences.
    private(set) var problems: [String: [String]] = [:]
    /// When the last sync ended well.
    private(set) var lastSync: Date?
    /// Presses still to send.
    private(set) var queued = 0
    /// Requests sent since chimed started (make bench counts them).
    private(set) var requests = 0
    /// Called after each sync that read items (the tests await it).
    var onRead: (() -> Void)?
    /// Notifications whose popups show occurrences another device has done: they close.
    var onDoneElsewhere: (([String]) -> Void)?
    /// A sentence the user must act on, told once until the calendar syncs again.
    var onTrouble: ((String) -> Void)?
    /// The popups on screen: each notification's id and when it rang.
    var shown: () -> [(id: String, rang: Date)] = { [] }

    /// Items fetched per calendar-multiget: Radicale answers 400 to a REPORT of more than
    /// 10,000, and smaller answers keep chimed's memory flat.
    static let chunk = 1000
    /// A sync's requests are given this long; the first sync-collection of a large
    /// collection takes tens of seconds on Radicale.
    ///
    /// `CHIME_CALDAV_TIMEOUT_SECONDS` replaces it, read once: a test knob, so that a test of
    /// a server that trickles a byte a second for ever (never slow enough to count as
    /// stalled) ends in seconds rather than in two minutes.
    static let requestSeconds: Int = {
        guard let text = getenv("CHIME_CALDAV_TIMEOUT_SECONDS").map({ String(cString: $0) }), let seconds = Int(text), seconds > 0 else {
            return 120
        }
        return seconds
    }()
    /// The check before an alarm starts this long (and 2 s more) ahead of it: a server that
    /// answers within that is heard before the alarm rings. A slower one never makes the
    /// alarm late, since an alarm waits for no sync; its answer counts for the next alarm.
    static let checkSeconds = 5
    /// The longest a Retry-After holds the next sync back, in seconds.
    static let longestRetryAfter = 86_400
    /// Every this many syncs, one lists the whole collection rather than the changes since
    /// the token: a server that forgets a token and answers it as new (DAViCal gives every
    /// item, and no deletion, for a token it does not know) is caught up within the hour.
    static let wholeEvery = 12

    private let parts: Calendars.Context
    private let http: () -> HTTPClient
    private let passwords: Passwords
    private var settings: CalDAVSettings { calendar.caldav ?? CalDAVSettings(user: "") }
    private var password: String?
    private var syncToken: String?
    private var emptySince: Date?
    private var items: [String: CalDAVItemStatus] = [:]
    /// False once the server refused sync-collection: its ETags are listed instead.
    private var tokens = true
    /// Syncs since the last that listed the whole collection.
    private var sinceWhole = 0
    /// Whether the user may change the collection's items, once the server has said.
    private(set) var writable: Bool?
    private var running = false
    private var again = false
    private var waiting: [(Report) -> Void] = []
    private var firstSync: [() -> Void] = []
    private var timer: Source?
    private var failures = 0
    private var stopped = false
    private var told: String?
    private var transfers: [HTTPTransfer] = []

    init(_ calendar: CalendarSource, parts: Calendars.Context, http: @escaping () -> HTTPClient, passwords: Passwords) {
        self.calendar = calendar
        self.parts = parts
        self.http = http
        self.passwords = passwords
    }

    /// The collection's URL, with its last slash, as requests name it.
    private var collection: String { calendar.location + "/" }

    /// Reads where the last sync stood, and syncs.
    func start() {
        do {
            let stored = try parts.commits.read { () throws(StoreError) in try parts.store.caldavState(of: calendar.name) }
            (syncToken, emptySince, items, lastSync) = (stored.syncToken, stored.emptySince, stored.items, stored.lastSync)
            queued = try parts.commits.read { () throws(StoreError) in try parts.store.queuedPresses(of: calendar.name) }.count
        } catch {
            parts.logger.error("Calendar \(calendar.name): its sync's state cannot be read: \(error).")
        }
        sync()
    }

    /// Stops: no request is sent any more, and those under way are dropped.
    func stop() {
        stopped = true
        timer?.cancel()
        timer = nil
        for transfer in transfers { transfer.cancel() }
        transfers = []
    }

    /// Whether its last sync could not reach the server.
    var isOffline: Bool {
        if case .offline = state { return true }
        return false
    }

    /// Asks for the password again before the next request (a new one was stored).
    func forgetPassword() {
        password = nil
    }

    /// Calls `body` once the first sync has ended, well or not.
    func whenRead(_ body: @escaping () -> Void) {
        if state == .syncing { firstSync.append(body) } else { body() }
    }

    // MARK: - Syncing

    /// Syncs now (or right after the sync under way); `done` hears what it did.
    func sync(done: ((Report) -> Void)? = nil) {
        if let done { waiting.append(done) }
        guard !stopped else { return finish(Report(error: "the calendar is no longer followed"), state: state) }
        guard !running else {
            again = true
            return
        }
        running = true
        timer?.cancel()
        timer = nil
        withPassword { [unowned self] in
            self.readPrivileges { [unowned self] in
                self.sendQueued(report: Report()) { [unowned self] report in
                    self.list(report: report)
                }
            }
        }
    }

    /// Syncs at `seconds` before `instant` (an alarm of this calendar), so that one done on
    /// another device is known before it rings; a sync due sooner stands.
    func syncAhead(of instant: Date) {
        let delay = instant.timeIntervalSince(parts.now()) - Double(Self.checkSeconds) - 2
        // Offline, the back-off's tries stand: a check that cannot reach the server tells nothing.
        guard delay > 0, delay < Double(settings.interval), !isOffline else { return }
        arm(afterSeconds: delay)
    }

    /// Syncs ahead of this calendar's next alarm when it comes before the next sync.
    private func armAhead() {
        guard let made = try? parts.commits.read({ () throws(StoreError) in try parts.store.linkedIDs(inFolder: calendar.location) }),
              let next = parts.schedule.earliestFire(among: made.values.flatMap { $0 }) else { return }
        syncAhead(of: next)
    }

    private func arm(afterSeconds seconds: Double) {
        guard !stopped else { return }
        timer?.cancel()
        timer = parts.loop.timeout(afterMilliseconds: Int(seconds * 1000)) { [unowned self] in
            self.timer = nil
            self.sync()
        }
    }

    /// Ends a sync: the next is armed (sooner after a failure, up to the interval) and those
    /// waiting hear `report`.
    private func finish(_ report: Report, state: State, retryAfter: Int? = nil) {
        running = false
        self.state = state
        switch state {
        case .synced, .syncing:
            failures = 0
            told = nil
            arm(afterSeconds: Double(settings.interval))
            armAhead()
        case .offline, .failed:
            failures += 1
            let backoff = min(Double(settings.interval), 10 * Double(1 << min(failures - 1, 10)))
            // RFC 9110 10.2.3: a server that says when to come back is left alone until then
            // (a day at most: a server asking for more is taken as asking for that).
            arm(afterSeconds: max(backoff, Double(min(retryAfter ?? 0, Self.longestRetryAfter))))
        }
        if case .failed(let sentence) = state, told != sentence {
            told = sentence
            onTrouble?(sentence)
        }
        let callbacks = waiting
        waiting = []
        for callback in callbacks { callback(report) }
        let first = firstSync
        firstSync = []
        for callback in first { callback() }
        if again {
            again = false
            sync()
        }
    }

    /// Ends a sync that failed: offline for what may pass by itself, failed for what the
    /// user must mend.
    private func fail(_ report: Report, _ failure: Trouble) {
        var report = report
        report.error = failure.sentence
        // Most sentences name the calendar first already (they are shown alone, too).
        let named = failure.sentence.hasPrefix("Calendar \(calendar.name):") || failure.sentence.hasPrefix("Calendar \(calendar.name) ")
        parts.logger.warning(named ? "\(failure.sentence)" : "Calendar \(calendar.name): \(failure.sentence)")
        finish(report, state: failure.needsUser ? .failed(failure.sentence) : .offline(failure.sentence), retryAfter: failure.retryAfter)
    }

    private struct Trouble: Error {
        var sentence: String
        var needsUser: Bool
        /// The HTTP status that made it, when the server answered.
        var status: Int?
        /// The answer was larger than the request allowed.
        var tooLarge = false
        /// Seconds the server asked to be left alone (Retry-After with a 429 or a 5xx).
        var retryAfter: Int?
    }

    // MARK: - Requests

    /// Has the password ready, then calls `next`.
    private func withPassword(_ next: @escaping () -> Void) {
        if password != nil { return next() }
        let (url, user) = (Calendars.origin(calendar.location), settings.user)
        let got = { [unowned self] (result: Result<String?, PasswordFailure>) in
            guard !self.stopped else { return }
            switch result {
            case .success(let found?):
                self.password = found
                next()
            case .success(nil):
                self.fail(Report(), Trouble(sentence: "No password for \(user) is stored for \(calendar.name); "
                                               + "give it with chime calendar password \(calendar.name).", needsUser: true))
            case .failure(let failure):
                self.fail(Report(), Trouble(sentence: failure.description, needsUser: true))
            }
        }
        if let command = settings.passwordCommand {
            passwords.run(command: command) { got($0.map { Optional($0) }) }
        } else {
            passwords.lookup(url: url, user: user, done: got)
        }
    }

    /// Sends one request as the calendar's user; `done` hears the answer, or the trouble
    /// (the password refused, the server unreachable, an answer too large).
    private func send(_ method: String, _ url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                      seconds: Int = CalDAVCalendar.requestSeconds, maxBytes: Int = Limits.caldavResponseBytes,
                      done: @escaping (Result<HTTPResponse, Trouble>) -> Void) {
        var request = HTTPRequest(method: method, url: url, headers: headers, body: body, user: settings.user, password: password)
        request.caFile = settings.ca
        request.timeoutSeconds = seconds
        request.maxResponseBytes = maxBytes
        requests += 1
        var transfer: HTTPTransfer?
        transfer = http().send(request) { [unowned self] result in
            self.transfers.removeAll { $0 === transfer }
            guard !self.stopped else { return }
            switch result {
            case .success(let response) where response.status == 401:
                // Asked again at the next sync: the keyring or the command may have a new one by then.
                self.password = nil
                // SetCalendarPassword refuses a calendar whose password a command prints: the
                // command's output is what to mend.
                let remedy = self.settings.passwordCommand.map { "change what its password command (\($0)) prints" }
                    ?? "give the right one with chime calendar password \(self.calendar.name)"
                done(.failure(Trouble(sentence: "The server refused the password of \(self.settings.user) for calendar \(self.calendar.name); "
                                          + remedy + ".", needsUser: true)))
            // 501 Not Implemented is no passing trouble but a server without the method or
            // REPORT (sync-collection is optional, RFC 6578): the caller's own answer decides.
            case .success(let response) where response.status == 429 || (response.status >= 500 && response.status != 501):
                let retryAfter = response.retryAfterSeconds(now: self.parts.now())
                let wait = retryAfter.map { " (it asks to wait \($0) s)" } ?? ""
                done(.failure(Trouble(sentence: "The server of calendar \(self.calendar.name) answered \(method) with HTTP \(response.status)\(wait).",
                                      needsUser: false, status: response.status, retryAfter: retryAfter)))
            case .success(let response):
                done(.success(response))
            case .failure(let failure):
                let needsUser = [.tls, .redirect, .insecure, .unavailable].contains(failure.kind)
                done(.failure(Trouble(sentence: "Calendar \(self.calendar.name): \(failure.description).", needsUser: needsUser,
                                      tooLarge: failure.kind == .tooLarge)))
            }
        }
        if let transfer { transfers.append(transfer) }
    }

    /// Learns, once per start, whether the user may change the collection's items (RFC 3744
    /// current-user-privilege-set), then calls `next`. An answer that says nothing leaves it
    /// unknown: the sync goes on, and a refused PUT tells later.
    private func readPrivileges(_ next: @escaping () -> Void) {
        guard writable == nil else { return next() }
        send("PROPFIND", collection, headers: [("Depth", "0"), ("Content-Type", "application/xml; charset=utf-8")],
             body: DAVBody.privileges()) { [unowned self] result in
            switch result {
            case .failure(let trouble) where trouble.needsUser || (trouble.status == nil && !trouble.tooLarge):
                // Unreachable, or the password refused: the sync can go no further.
                return self.fail(Report(), trouble)
            case .failure:
                // A 5xx: asked again at the next sync.
                break
            case .success(let response):
                let answer = response.status == 207 ? try? Multistatus.parse(response.body, maxBytes: Limits.caldavResponseBytes) : nil
                let own = answer?.responses.first {
                    DAVURL.resolve($0.href, against: self.collection).map(DAVURL.collectionKey) == DAVURL.collectionKey(self.collection)
                }
                // A server that says nothing of privileges is taken at its word when a PUT is refused.
                self.writable = own?.writable ?? true
                if self.writable == false {
                    self.parts.logger.info("Calendar \(self.calendar.name): \(self.settings.user) may read it but not change it; what is pressed stays on this machine.")
                }
            }
            next()
        }
    }

    // MARK: - Reading what changed

    /// What changed on the server since the last sync.
    private struct Listing {
        /// Items new or changed, with their ETags.
        var changed: [String: String?] = [:]
        var removed: Set<String> = []
        var token: String?
        /// Every item was listed (not only the changes since a token).
        var whole = false
        /// The server has more changes than it gave (RFC 6578 3.6's 507): sync again.
        var truncated = false
        /// Items fetched but not read, each with its sentences.
        var problems: [String: [String]] = [:]
    }

    private func list(report: Report) {
        guard tokens else { return listETags(report: report) }
        let token = sinceWhole + 1 >= Self.wholeEvery ? nil : syncToken
        send("REPORT", collection, headers: [("Depth", "0"), ("Content-Type", "application/xml; charset=utf-8")],
             body: DAVBody.syncCollection(token: token)) { [unowned self] result in
            switch result {
            case .failure(let trouble) where token != nil && trouble.status == 500:
                // xandikos answers a token it does not have (its collection deleted and made
                // anew) with 500, not RFC 6578's valid-sync-token: asked again without it, or
                // every sync would fail the same way for ever.
                self.parts.logger.info("Calendar \(self.calendar.name): sync-collection with the sync token answered HTTP 500; reading every item's ETag.")
                self.syncToken = nil
                self.list(report: report)
            case .failure(let trouble): self.fail(report, trouble)
            case .success(let response) where response.status == 207:
                do throws(DAVFailure) {
                    let answer = try Multistatus.parse(response.body, maxBytes: Limits.caldavResponseBytes)
                    var listing = Listing(token: answer.syncToken, whole: token == nil)
                    for entry in answer.responses {
                        guard let name = self.itemName(entry.href) else {
                            if entry.status == 507 { listing.truncated = true }
                            continue
                        }
                        if entry.status == 404 { listing.removed.insert(name) } else { listing.changed[name] = entry.etag }
                    }
                    self.fetch(listing, report: report)
                } catch {
                    self.fail(report, Trouble(sentence: "The server of calendar \(self.calendar.name) answered sync-collection with \(error).", needsUser: false))
                }
            case .success(let response) where token != nil && [403, 409].contains(response.status)
                && DAVCondition.names(in: response.body).contains("valid-sync-token"):
                // RFC 6578 3.2: the token is no longer good; start over from the whole collection.
                self.parts.logger.info("Calendar \(self.calendar.name): the server no longer knows the sync token; reading every item's ETag.")
                self.syncToken = nil
                self.list(report: report)
            case .success(let response) where response.status == 404 || response.status == 410:
                self.fail(report, Trouble(sentence: "Calendar \(self.calendar.name) is gone from the server (HTTP \(response.status)); "
                                             + "its reminders are kept until you remove it.", needsUser: true))
            case .success(let response) where response.status == 403 && token == nil && DAVCondition.names(in: response.body).isEmpty:
                self.fail(report, Trouble(sentence: "The server does not let \(self.settings.user) read calendar \(self.calendar.name) (HTTP 403).",
                                          needsUser: true))
            case .success(let response):
                // A server without sync-collection (RFC 6578 is optional): its ETags tell what changed.
                self.parts.logger.info("Calendar \(self.calendar.name): sync-collection answered HTTP \(response.status); reading every item's ETag instead.")
                self.tokens = false
                self.syncToken = nil
                self.listETags(report: report)
            }
        }
    }

    private func listETags(report: Report) {
        send("PROPFIND", collection, headers: [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")],
             body: DAVBody.etags()) { [unowned self] result in
            switch result {
            case .failure(let trouble): self.fail(report, trouble)
            case .success(let response) where response.status == 207:
                do throws(DAVFailure) {
                    let answer = try Multistatus.parse(response.body, maxBytes: Limits.caldavResponseBytes)
                    var listing = Listing(whole: true)
                    for entry in answer.responses where !entry.isCollection {
                        guard let name = self.itemName(entry.href) else { continue }
                        listing.changed[name] = entry.etag
                    }
                    self.fetch(listing, report: report)
                } catch {
                    self.fail(report, Trouble(sentence: "The server of calendar \(self.calendar.name) answered PROPFIND with \(error).", needsUser: false))
                }
            case .success(let response) where response.status == 404 || response.status == 410:
                self.fail(report, Trouble(sentence: "Calendar \(self.calendar.name) is gone from the server (HTTP \(response.status)); "
                                             + "its reminders are kept until you remove it.", needsUser: true))
            case .success(let response):
                self.fail(report, Trouble(sentence: "The server of calendar \(self.calendar.name) answered PROPFIND with HTTP \(response.status).",
                                          needsUser: response.status == 403))
            }
        }
    }

    /// The name in the collection of the item at `href`; nil for the collection itself or
    /// anything not directly in it.
    private func itemName(_ href: String) -> String? {
        guard let url = DAVURL.resolve(href, against: collection) else { return nil }
        let key = DAVURL.collectionKey(url), own = DAVURL.collectionKey(collection)
        guard key.hasPrefix(own + "/") else { return nil }
        let name = key.dropFirst(own.count + 1)
        guard !name.isEmpty, !name.contains("/") else { return nil }
        // The name as the server wrote it: what the item's URL is made of again.
        return url.split(separator: "/").last.map(String.init)
    }

    /// What one sync fetched: each item's new status, and the items whose text changed,
    /// read as they arrived.
    private struct Fetched {
        var changed: [String: CalDAVItemStatus] = [:]
        /// The items whose text changed, as fetched (for what another device has done).
        var texts: [(name: String, text: String)] = []
        var read: [(name: String, components: [ImportComponent])] = []
        var any = false
    }

    /// The requests of one fetch, in order: a multiget of some items, or one item alone by
    /// GET (`why` its multiget answer could not be read).
    private enum Step {
        case chunk(ArraySlice<String>)
        case alone(String, why: String)
    }

    /// One fetch under way. Its requests go one after another, each sent before the answer
    /// of the one before is read: chimed reads while the server prepares the next answer.
    private final class Fetch {
        var listing: Listing
        let report: Report
        var fetched = Fetched()
        var steps: [Step]
        var sending = false
        var reading = false
        var ended = false
        /// The reading of the last answer, a loop turn after it came.
        var reader: Source?

        init(_ listing: Listing, report: Report, steps: [Step]) {
            (self.listing, self.report, self.steps) = (listing, report, steps)
        }
    }

    /// Fetches what the listing says changed, and merges it.
    private func fetch(_ listing: Listing, report: Report) {
        var listing = listing
        if listing.whole {
            // Whatever was read before and is not listed now is gone.
            listing.removed = Set(items.keys).subtracting(listing.changed.keys)
        }
        // An ETag already read stands for the same text: not fetched again.
        let wanted = listing.changed.filter { name, etag in etag == nil || items[name]?.etag != etag }.keys.sorted()
        if !wanted.isEmpty, let failure = CalendarText.loadFailure() {
            return fail(report, Trouble(sentence: "Calendar \(calendar.name): \(failure)", needsUser: true))
        }
        let steps = stride(from: 0, to: wanted.count, by: Self.chunk).map { Step.chunk(wanted[$0..<min($0 + Self.chunk, wanted.count)]) }
        advance(Fetch(listing, report: report, steps: steps))
    }

    /// Sends the fetch's next request when none is under way; merges once all are answered and read.
    private func advance(_ fetch: Fetch) {
        guard !fetch.ended, !fetch.sending, !stopped else { return }
        guard let step = fetch.steps.first else {
            if !fetch.reading {
                fetch.ended = true
                apply(fetch.listing, fetched: fetch.fetched, report: fetch.report)
            }
            return
        }
        fetch.steps.removeFirst()
        fetch.sending = true
        switch step {
        case .chunk(let chunk): fetchChunk(chunk, in: fetch)
        case .alone(let name, let why): fetchAlone(name, in: fetch, unreadable: why)
        }
    }

    /// Ends the fetch: the sync fails with `trouble`.
    private func abandon(_ fetch: Fetch, _ trouble: Trouble) {
        guard !fetch.ended else { return }
        fetch.ended = true
        fail(fetch.report, trouble)
    }

    /// A chunk whose answer could not be read (one item can spoil the XML of its whole chunk:
    /// a text larger than libxml2 reads, a control character the server wrote raw) or was
    /// larger than an answer may be: asked for again in halves, so that only that item stays
    /// unread, and an item alone by GET.
    private func retry(_ chunk: ArraySlice<String>, in fetch: Fetch, why: String) {
        if chunk.count > 1 {
            let half = chunk.startIndex + chunk.count / 2
            fetch.steps.insert(contentsOf: [.chunk(chunk[..<half]), .chunk(chunk[half...])], at: 0)
        } else if let name = chunk.first {
            fetch.steps.insert(.alone(name, why: why), at: 0)
        }
    }

    private func fetchChunk(_ chunk: ArraySlice<String>, in fetch: Fetch) {
        let hrefs = chunk.compactMap { DAVURL.path(of: collection + $0) }
        send("REPORT", collection, headers: [("Depth", "1"), ("Content-Type", "application/xml; charset=utf-8")],
             body: DAVBody.multiget(hrefs: hrefs)) { [unowned self] result in
            fetch.sending = false
            switch result {
            case .failure(let trouble) where trouble.tooLarge:
                self.retry(chunk, in: fetch, why: "the answer was larger than \(Limits.caldavResponseBytes >> 20) MiB")
            case .failure(let trouble):
                return self.abandon(fetch, trouble)
            case .success(let response) where response.status == 207:
                // The next request goes out first, and this answer is read a millisecond later,
                // once libcurl (whose timer is due sooner) has sent it: chimed reads while the
                // server prepares the next answer.
                fetch.reading = true
                self.advance(fetch)
                fetch.reader = self.parts.loop.timeout(afterMilliseconds: 1) { [weak self] in
                    fetch.reader = nil
                    guard let self, !self.stopped, !fetch.ended else { return }
                    self.read(response.body, of: chunk, into: fetch)
                    fetch.reading = false
                    self.advance(fetch)
                }
                return
            case .success(let response):
                return self.abandon(fetch, Trouble(sentence: "The server of calendar \(self.calendar.name) answered calendar-multiget with HTTP \(response.status).",
                                                   needsUser: false))
            }
            self.advance(fetch)
        }
    }

    /// Reads a multiget answer of `chunk` into `fetch`; an answer that cannot be read is asked for again, in halves.
    private func read(_ body: [UInt8], of chunk: ArraySlice<String>, into fetch: Fetch) {
        do throws(DAVFailure) {
            let answer = try Multistatus.parse(body, maxBytes: Limits.caldavResponseBytes)
            var answered = Set<String>()
            let asked = Set(chunk)
            for entry in answer.responses {
                guard let name = itemName(entry.href), asked.contains(name) else { continue }
                answered.insert(name)
                if let text = entry.calendarData {
                    take(name, text, etag: entry.etag ?? fetch.listing.changed[name] ?? nil, into: fetch)
                } else if entry.status == 404 || entry.propstatStatus == 404 {
                    fetch.listing.removed.insert(name)
                }
            }
            // Gone between the listing and the fetch.
            for name in chunk where !answered.contains(name) { fetch.listing.changed[name] = nil }
        } catch {
            retry(chunk, in: fetch, why: "\(error)")
        }
    }

    /// Fetches item `name` with GET, whose multiget answer was `unreadable`; an item larger
    /// than a calendar file may be is named, not read.
    private func fetchAlone(_ name: String, in fetch: Fetch, unreadable: String) {
        send("GET", collection + name, maxBytes: Limits.calendarFileBytes) { [unowned self] result in
            fetch.sending = false
            switch result {
            case .failure(let trouble) where trouble.tooLarge:
                fetch.listing.problems[name] = ["\(name) is larger than \(Limits.calendarFileBytes >> 20) MiB, so it was not read."]
            case .failure(let trouble):
                return self.abandon(fetch, trouble)
            case .success(let response) where response.status == 200:
                self.take(name, String(decoding: response.body, as: UTF8.self), etag: response.header("etag") ?? fetch.listing.changed[name] ?? nil,
                          into: fetch)
            case .success(let response) where response.status == 404 || response.status == 410:
                fetch.listing.removed.insert(name)
            case .success(let response):
                fetch.listing.problems[name] = ["\(name) was not read: the server's calendar-multiget answer with it could not be read "
                                                + "(\(unreadable)), and GET answered HTTP \(response.status)."]
            }
            self.advance(fetch)
        }
    }

    /// Takes item `name` as fetched: its status, and its text read unless it is the text read before.
    private func take(_ name: String, _ text: String, etag: String?, into fetch: Fetch) {
        fetch.fetched.any = true
        if text.utf8.count > Limits.calendarFileBytes {
            fetch.listing.problems[name] = ["\(name) is larger than \(Limits.calendarFileBytes >> 20) MiB, so it was not read."]
            return
        }
        let hash = Self.hash(text)
        fetch.fetched.changed[name] = CalDAVItemStatus(etag: etag, hash: hash)
        // The server's own copy of what was read before (Radicale rewrites what it stores).
        if items[name]?.hash == hash { return }
        fetch.fetched.texts.append((name, text))
        let allDay = parts.settings.config.allDayTime
        switch CalendarReading.read(name, text, allDay: (allDay.hour, allDay.minute)) {
        case .components(let components): fetch.fetched.read.append((name, components))
        case .notCalendar(let sentence): fetch.listing.problems[name] = [sentence]
        }
    }

    /// Merges what was fetched and what is gone, with the new status, in one transaction.
    private func apply(_ listing: Listing, fetched: Fetched, report: Report) {
        var report = report
        let now = parts.now()
        var removed = listing.removed
        // vdirsyncer's guard: a collection that had items and suddenly has none is more
        // likely a server's bad moment than the user's wish; believed when a second sync,
        // an interval later, says the same.
        var emptySince = self.emptySince
        let emptied = !items.isEmpty && Set(items.keys).subtracting(removed).isEmpty && !fetched.any && listing.changed.isEmpty
        if emptied {
            if let since = emptySince, now.timeIntervalSince(since) >= Double(settings.interval) - 1 {
                parts.logger.warning("Calendar \(calendar.name): the collection is still empty; its \(items.count) items are taken as removed.")
                emptySince = nil
            } else {
                if emptySince == nil { emptySince = now }
                parts.logger.warning("Calendar \(calendar.name): the server lists no items where \(items.count) were; kept until a later sync says the same.")
                removed = []
            }
        } else {
            emptySince = nil
        }
        let (changed, texts) = (fetched.changed, fetched.texts)
        // A token that did not come (the answer lacked it) or a truncated answer: the next sync reads the whole collection again.
        let token = emptied && !removed.isEmpty ? listing.token : (emptied ? syncToken : listing.token)
        let (store, name) = (parts.store, calendar.name)
        let rang = shown()
        CalendarReading.merge(read: fetched.read, problems: [:], gone: removed, of: calendar, parts: parts, also: { db in
            try store.saveSync(of: name, token: token, at: now, emptySince: emptySince, changed: changed, removed: Array(removed), in: db)
        }) { [weak self] result, found in
            guard let self, !self.stopped else { return }
            for (item, _) in texts { self.problems[item] = nil }
            for item in removed { self.problems[item] = nil }
            self.problems.merge(listing.problems.merging(found) { _, new in new }) { _, new in new }
            switch result {
            case .success(let changes):
                self.sinceWhole = listing.whole ? 0 : self.sinceWhole + 1
                for (item, status) in changed { self.items[item] = status }
                for item in removed { self.items[item] = nil }
                self.syncToken = token
                self.emptySince = emptySince
                self.lastSync = now
                report.new += changes.new
                report.updated += changes.updated
                report.removed += changes.removed
                self.parts.logger.info("Calendar \(self.calendar.name): synced: \(changes.new) new, \(changes.updated) updated, \(changes.removed) removed, \(self.problems.count) with problems.")
                self.closeDoneElsewhere(texts: texts, removed: removed, shown: rang)
                // A first sync of thousands of items leaves megabytes of answers and parse trees
                // freed but held by malloc; an idle chimed gives them back.
                if changed.count > Self.chunk { _ = clinux_malloc_trim() }
                self.onRead?()
                if listing.truncated { self.again = true }
                self.finish(report, state: .synced)
            case .failure(.unreadable(let sentence)):
                self.fail(report, Trouble(sentence: "Calendar \(self.calendar.name): \(sentence)", needsUser: true))
            case .failure(.notStored(let error)):
                self.fail(report, Trouble(sentence: "Calendar \(self.calendar.name) was read but not stored: \(error.clause)", needsUser: false))
            }
        }
    }

    /// Closes the popups of occurrences another device has done: completed, acknowledged
    /// (RFC 9074 6, or Thunderbird's X-MOZ-LASTACK) or removed.
    private func closeDoneElsewhere(texts: [(name: String, text: String)], removed: Set<String>, shown: [(id: String, rang: Date)]) {
        guard !shown.isEmpty, !(texts.isEmpty && removed.isEmpty) else { return }
        let byName = Dictionary(texts.map { ($0.name, $0.text) }, uniquingKeysWith: { first, _ in first })
        var done: [String] = []
        for (id, rang) in shown {
            guard let notification = (try? parts.commits.read({ () throws(StoreError) in try parts.store.notification(id: id) })) ?? nil else { continue }
            let link = notification.link ?? notification.origin.flatMap { origin in
                ((try? parts.commits.read({ () throws(StoreError) in try parts.store.notification(id: origin) })) ?? nil)?.link
            }
            guard let link, let item = calendar.file(ofSource: link.source) else { continue }
            if removed.contains(item) {
                done.append(id)
            } else if let text = byName[item], CalendarPatch(text).isDone(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, rang: rang) {
                done.append(id)
            }
        }
        if !done.isEmpty {
            parts.logger.info("Calendar \(calendar.name): \(done.joined(separator: ", ")) done on another device; their popups close.")
            onDoneElsewhere?(done)
        }
    }

    /// FNV-1a, 64 bits: enough to tell whether an item's text changed.
    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }

    // MARK: - Writing back

    /// Queues `press` on the item `link` came from, to be written as soon as the server
    /// answers (now, when it does); the alarm's key after the write (a snoozed alarm gets a
    /// UID when it had none, as ``CalendarPatch/snooze`` gives it).
    func write(_ press: Calendars.Press, for link: CalendarLink, at instant: Date) -> String? {
        guard let item = calendar.file(ofSource: link.source) else { return nil }
        if case .acknowledge = press, !settings.shareDismissals {
            parts.logger.info("Calendar \(calendar.name): a dismissal of \(link.uid) stays on this machine, as the calendar is set.")
            return nil
        }
        var queuedPress = QueuedPress(kind: "", link: link, at: instant)
        var alarm = link.alarm
        switch press {
        case .complete: queuedPress.kind = "complete"
        case .completeOccurrence(let occurrence):
            queuedPress.kind = "completeOccurrence"
            queuedPress.occurrence = occurrence.description
        case .acknowledge: queuedPress.kind = "acknowledge"
        case .snooze(let until, let snoozeUID, let occurrence):
            queuedPress.kind = "snooze"
            (queuedPress.until, queuedPress.snoozeUID, queuedPress.snoozeOccurrence) = (until, snoozeUID, occurrence)
            if alarm.hasPrefix("#") { alarm = snoozeUID + "-alarm" }
        }
        let (store, name) = (parts.store, calendar.name)
        parts.commits.stage({ db in try store.queue(queuedPress, item: item, of: name, in: db) }) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                self.queued += 1
                self.sync()
            case .failure(let error):
                self.parts.logger.error("Calendar \(name): \(press.name) of \(link.uid) cannot be queued: \(error).")
            }
        }
        return alarm
    }

    /// Sends the queued presses in order, each as a patch of the item as the server has it
    /// now; stops at the first the server cannot take now (it is sent at the next sync).
    private func sendQueued(report: Report, then next: @escaping (Report) -> Void) {
        let queue: [(item: String, press: QueuedPress)]
        do {
            queue = try parts.commits.read { () throws(StoreError) in try parts.store.queuedPresses(of: calendar.name) }
        } catch {
            parts.logger.error("Calendar \(calendar.name): the presses to send cannot be read: \(error).")
            return next(report)
        }
        queued = queue.count
        guard let (item, press) = queue.first else { return next(report) }
        put(press, into: item, tries: 3) { [unowned self] result in
            var report = report
            switch result {
            case .success(let written):
                if written { report.sent += 1 }
                self.unqueue(press) { self.sendQueued(report: report, then: next) }
            case .failure(let trouble):
                self.fail(report, trouble)
            }
        }
    }

    private func unqueue(_ press: QueuedPress, then next: @escaping () -> Void) {
        let store = parts.store
        parts.commits.stage({ db in try store.unqueue(press.seq, in: db) }) { [unowned self] result in
            if case .failure(let error) = result {
                self.parts.logger.error("Calendar \(self.calendar.name): a press sent stays queued: \(error).")
                return
            }
            self.queued = max(0, self.queued - 1)
            next()
        }
    }

    /// Reads item `item`, patches it with `press` and puts it back if the server still has it
    /// as read (If-Match); read and patched again on 412. Success: whether it was written
    /// (false: nothing to write, or the item is gone or cannot be written, which is logged
    /// and named). Failure: the press stays queued.
    private func put(_ press: QueuedPress, into item: String, tries: Int, done: @escaping (Result<Bool, Trouble>) -> Void) {
        let url = collection + item
        send("GET", url) { [unowned self] result in
            switch result {
            case .failure(let trouble): done(.failure(trouble))
            case .success(let response) where response.status == 404 || response.status == 410:
                self.parts.logger.info("Calendar \(self.calendar.name): \(item) is gone from the server; \(press.kind) of \(press.link.uid) is not written.")
                done(.success(false))
            case .success(let response) where response.status == 200:
                let text = String(decoding: response.body, as: UTF8.self)
                var patch = CalendarPatch(text)
                do throws(CalendarPatch.Failure) {
                    try Self.apply(press, to: &patch)
                } catch {
                    self.problems[item, default: []].append("\(item): what was pressed was not written: \(error).")
                    return done(.success(false))
                }
                let patched = patch.text
                guard patched != text else { return done(.success(false)) }
                var headers: [(name: String, value: String)] = [("Content-Type", "text/calendar; charset=utf-8")]
                if let etag = response.header("etag") { headers.append(("If-Match", etag)) }
                self.send("PUT", url, headers: headers, body: Array(patched.utf8)) { [unowned self] result in
                    switch result {
                    case .failure(let trouble): done(.failure(trouble))
                    case .success(let answer) where (200..<300).contains(answer.status):
                        self.parts.logger.info("Calendar \(self.calendar.name): wrote \(press.kind) of \(press.link.uid) into \(item).")
                        done(.success(true))
                    case .success(let answer) where answer.status == 412 && tries > 1:
                        // Changed by another device since it was read: read, patched and sent again.
                        self.parts.logger.info("Calendar \(self.calendar.name): \(item) changed on the server while it was written; reading it again.")
                        self.put(press, into: item, tries: tries - 1, done: done)
                    case .success(let answer) where answer.status == 412:
                        done(.failure(Trouble(sentence: "Calendar \(self.calendar.name): \(item) kept changing on the server while Chime wrote it; tried again later.",
                                              needsUser: false)))
                    case .success(let answer) where answer.status == 403:
                        self.writable = false
                        self.problems[item, default: []].append("\(item): what was pressed was not written: the server does not let \(self.settings.user) change it (HTTP 403).")
                        done(.success(false))
                    case .success(let answer):
                        self.problems[item, default: []].append("\(item): what was pressed was not written: the server answered HTTP \(answer.status).")
                        done(.success(false))
                    }
                }
            case .success(let response):
                done(.failure(Trouble(sentence: "The server of calendar \(self.calendar.name) answered GET \(item) with HTTP \(response.status).",
                                      needsUser: false)))
            }
        }
    }

    /// What `press` writes, as ``Calendars/write`` writes it into a folder's file.
    private static func apply(_ press: QueuedPress, to patch: inout CalendarPatch) throws(CalendarPatch.Failure) {
        let link = press.link
        switch press.kind {
        case "complete":
            try patch.complete(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, at: press.at)
        case "completeOccurrence":
            if let occurrence = press.occurrence.flatMap(LocalDateTime.init(iso:)),
               try patch.completeOccurrence(uid: link.uid, occurrence: occurrence, alarm: link.alarm, at: press.at) {
                return
            }
            try patch.acknowledge(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, at: press.at)
        case "snooze":
            guard let until = press.until, let snoozeUID = press.snoozeUID else { return }
            _ = try patch.snooze(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, occurrence: press.snoozeOccurrence,
                                 until: until, snoozeUID: snoozeUID, at: press.at)
        default:
            try patch.acknowledge(uid: link.uid, recurrence: link.recurrence, alarm: link.alarm, at: press.at)
        }
    }
}
