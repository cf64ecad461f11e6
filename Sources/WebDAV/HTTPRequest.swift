/// How a request proves who sends it, when it carries a user and password.
public enum HTTPAuth: Sendable {
    /// Basic (RFC 7617), sent with the first request; Digest when the server asks for it.
    case basic
    /// Digest (RFC 7616): a first request without credentials learns the server's nonce.
    case digest
}

/// One HTTP request, as ``HTTPClient`` sends it.
public struct HTTPRequest: Sendable {
    /// The method: GET, PUT, DELETE, PROPFIND, REPORT, OPTIONS, …
    public var method: String
    /// An absolute http or https address.
    public var url: String
    /// Header fields to send, in order; libcurl adds Host, Content-Length and Accept-Encoding.
    public var headers: [(name: String, value: String)]
    /// The body; none is sent for an empty body, except with PUT and POST (Content-Length: 0).
    public var body: [UInt8]
    /// The user to sign in as, if the server needs one.
    public var user: String?
    /// The password of ``user``.
    public var password: String?
    /// How the credentials are sent.
    ///
    /// `.basic` sends them with the first request: Radicale delays every 401 by about a
    /// second, so a sync of many requests that each waited for a challenge would crawl.
    public var auth: HTTPAuth = .basic
    /// A PEM file of the CAs trusted instead of the system's, for a server with a
    /// self-signed certificate. There is no way to ignore certificate errors.
    public var caFile: String?
    /// How long the whole exchange may take, redirects and retries included.
    public var timeoutSeconds = 60
    /// How long the server may send less than one byte a second before the transfer fails:
    /// an endless trickle would otherwise hold a connection until ``timeoutSeconds``.
    public var stallSeconds = 30
    /// The most bytes of body accepted, counted after decoding (so a small gzip bomb stays
    /// small); a larger answer fails with `.tooLarge` as soon as the limit is passed.
    public var maxResponseBytes = 64 << 20

    /// A request with the defaults above.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
                user: String? = nil, password: String? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.user = user
        self.password = password
    }

    /// Whether the request carries credentials: a user or password, or an Authorization
    /// field of the caller's own (a bearer token, say).
    var hasCredentials: Bool {
        user != nil || password != nil || headers.contains { $0.name.lowercased() == "authorization" }
    }
}
