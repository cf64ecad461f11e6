import ChimeAPI
import DBus
import FoundationEssentials
import WebDAV

/// Finds the calendars of a CalDAV account from the address a user knows (the server's,
/// as its web page shows it): RFC 6764's `/.well-known/caldav`, then RFC 5397's
/// `current-user-principal` and RFC 4791's `calendar-home-set`, and the calendars there with
/// what each holds (`supported-calendar-component-set`) and whether the user may write it
/// (RFC 3744's `current-user-privilege-set`). An address that is a calendar is that one alone.
final class CalDAVDiscovery {
    /// A calendar found.
    struct Found {
        /// Its URL, without the last slash.
        var url: String
        var displayName: String
        /// VEVENT, VTODO…; empty when the server does not say (every kind, RFC 4791 5.2.3).
        var components: [String]
        var writable: Bool
        var color: String?
    }

    private let http: HTTPClient
    private let user: String, password: String, ca: String?
    private var tried = Set<String>()

    init(http: HTTPClient, user: String, password: String, ca: String?) {
        (self.http, self.user, self.password, self.ca) = (http, user, password, ca)
    }

    /// The calendars of the account at `address`; `done` hears them, or one sentence.
    func find(at address: String, done: @escaping (Result<[Found], DBusError>) -> Void) {
        let start = address.hasSuffix("/") ? address : address + "/"
        probe(start) { [self] result in
            switch result {
            case .success(let found): done(.success(found))
            case .failure(let failure) where failure.tryWellKnown:
                // RFC 6764 5: the server's root names the context path by a redirect from here.
                guard let root = DAVURL.resolve("/.well-known/caldav", against: start), !tried.contains(root) else {
                    return done(.failure(failure.error))
                }
                probe(root) { done($0.mapError(\.error)) }
            case .failure(let failure): done(.failure(failure.error))
            }
        }
    }

    private struct Failure: Error {
        var error: DBusError
        /// Worth asking the well-known address instead.
        var tryWellKnown: Bool
    }

    /// Asks `url` who the user is and what it is: a calendar, a calendar home, or a place to
    /// find the principal.
    private func probe(_ url: String, done: @escaping (Result<[Found], Failure>) -> Void) {
        tried.insert(url)
        propfind(url, depth: "0", body: DAVBody.currentUserPrincipal()) { [self] result in
            switch result {
            case .failure(let failure): done(.failure(failure))
            case .success(let answer):
                let own = answer.responses.first
                if let own, own.isCalendar {
                    return done(.success([Self.found(own, at: url)]))
                }
                guard let principal = answer.responses.lazy.compactMap(\.principal).first,
                      let principalURL = DAVURL.resolve(principal, against: url) else {
                    return done(.failure(Failure(error: .invalidArgs("location: \(url) answers WebDAV but names no calendar user "
                                                                    + "(current-user-principal); give the address of the CalDAV server."),
                                                 tryWellKnown: true)))
                }
                home(of: principalURL, done: done)
            }
        }
    }

    private func home(of principal: String, done: @escaping (Result<[Found], Failure>) -> Void) {
        propfind(principal, depth: "0", body: DAVBody.calendarHome()) { [self] result in
            switch result {
            case .failure(let failure): done(.failure(failure))
            case .success(let answer):
                guard let home = answer.responses.lazy.flatMap(\.calendarHomes).first, let homeURL = DAVURL.resolve(home, against: principal) else {
                    return done(.failure(Failure(error: .invalidArgs("location: the server names no calendar home for \(user) (calendar-home-set); "
                                                                    + "it may not offer CalDAV."), tryWellKnown: false)))
                }
                calendars(in: homeURL, done: done)
            }
        }
    }

    private func calendars(in home: String, done: @escaping (Result<[Found], Failure>) -> Void) {
        propfind(home, depth: "1", body: DAVBody.calendars()) { result in
            done(result.map { answer in
                answer.responses.filter(\.isCalendar).compactMap { response in
                    DAVURL.resolve(response.href, against: home).map { Self.found(response, at: $0) }
                }
            })
        }
    }

    private static func found(_ response: DAVResponse, at url: String) -> Found {
        var location = url
        while location.hasSuffix("/") { location.removeLast() }
        let segment = DAVURL.lastSegment(of: location) ?? location
        // Radicale names a calendar made without a name by its path ("alice/personal"): no name.
        let path = (DAVURL.path(of: location) ?? "").split(separator: "/").joined(separator: "/")
        let name = response.displayName.flatMap { $0.isEmpty || $0.split(separator: "/").joined(separator: "/") == path ? nil : $0 } ?? segment
        return Found(url: location, displayName: name, components: response.components, writable: response.writable, color: response.color)
    }

    private func propfind(_ url: String, depth: String, body: [UInt8], done: @escaping (Result<Multistatus, Failure>) -> Void) {
        var request = HTTPRequest(method: "PROPFIND", url: url, headers: [("Depth", depth), ("Content-Type", "application/xml; charset=utf-8")],
                                  body: body, user: user, password: password)
        request.caFile = ca
        request.timeoutSeconds = 60
        request.maxResponseBytes = Limits.caldavResponseBytes
        http.send(request) { [user] result in
            switch result {
            case .failure(let failure):
                done(.failure(Failure(error: .invalidArgs("location: \(failure.description)."), tryWellKnown: false)))
            case .success(let response) where response.status == 401:
                done(.failure(Failure(error: DBusError(name: ChimeError.failed, message: "The server refused the password of \(user)."),
                                      tryWellKnown: false)))
            case .success(let response) where response.status == 207:
                do throws(DAVFailure) {
                    done(.success(try Multistatus.parse(response.body, maxBytes: Limits.caldavResponseBytes)))
                } catch {
                    done(.failure(Failure(error: .invalidArgs("location: \(url) answered with \(error)."), tryWellKnown: true)))
                }
            case .success(let response):
                done(.failure(Failure(error: .invalidArgs("location: \(url) answered PROPFIND with HTTP \(response.status); it is not a CalDAV server."),
                                      tryWellKnown: true)))
            }
        }
    }
}
