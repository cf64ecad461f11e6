/// Why an HTTP exchange brought no response.
public struct HTTPFailure: Error, CustomStringConvertible, Sendable {
    /// What kind of failure, for a caller deciding whether to retry.
    public enum Kind: Sendable {
        /// libcurl cannot be loaded.
        case unavailable
        /// The name does not resolve, or the connection was refused or broke.
        case unreachable
        /// TLS failed: an untrusted certificate, a failed handshake.
        case tls
        /// The server did not answer in time, or stalled.
        case timeout
        /// The answer was larger than the request allows.
        case tooLarge
        /// A redirect to another server, or too many redirects.
        case redirect
        /// Credentials would have gone out unencrypted; nothing was sent.
        case insecure
        /// Anything else: an invalid address, a broken answer.
        case failed
    }

    /// What kind of failure.
    public var kind: Kind
    /// A clause a user can act on, naming the server.
    public var description: String

    /// A failure of `kind`, described by `description`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
