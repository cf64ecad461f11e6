/// Why a server's WebDAV answer could not be read: one clause a user can act on, such as
/// "the server's answer is not XML: Opening and ending tag mismatch: prop line 3 and response (line 3)".
public struct DAVFailure: Error, CustomStringConvertible, Sendable, Equatable {
    /// The clause, in English, without a capital or a full stop, to follow "Chime could not …: ".
    public var description: String

    /// A failure that says `description`.
    public init(_ description: String) {
        self.description = description
    }
}
