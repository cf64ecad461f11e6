/// How much of one received message a process reads into ``Value``s.
///
/// Any peer can send a message as large as the bus allows (tens of MiB), and a value
/// tree costs far more memory and time than the bytes it came from. The limits are
/// checked while reading, so reading stops at the first one crossed, before the rest of
/// the tree is built, with an `InvalidArgs` error whose sentence names the limit. The
/// owner of a connection sets them (``Connection/readLimits``) from what it expects to
/// receive; they apply to every message read from that connection: calls, replies
/// and signals alike.
public struct ReadLimits: Sendable, Equatable {
    /// The body's size, counted as the bytes of its values on the wire.
    public var bytes: Int
    /// How many values, containers and dictionary entries included.
    public var values: Int
    /// How deep containers (arrays, structs, variants, dictionary entries) may nest.
    public var depth: Int
    /// The bytes of any one string, object path or signature.
    public var stringBytes: Int

    public init(bytes: Int, values: Int, depth: Int, stringBytes: Int) {
        self.bytes = bytes
        self.values = values
        self.depth = depth
        self.stringBytes = stringBytes
    }

    /// No limits beyond the bus's own: for a client reading what it asked for.
    public static let unlimited = ReadLimits(bytes: .max, values: .max, depth: .max, stringBytes: .max)
}

/// What is left of the ``ReadLimits`` while one message is read.
struct ReadBudget {
    let limits: ReadLimits
    private var bytesLeft: Int
    private var valuesLeft: Int
    private var depth = 0

    init(_ limits: ReadLimits) {
        self.limits = limits
        bytesLeft = limits.bytes
        valuesLeft = limits.values
    }

    mutating func spendValue() throws(DBusError) {
        guard valuesLeft > 0 else {
            throw .invalidArgs("The message holds more than \(limits.values) values, the most this service reads from one message.")
        }
        valuesLeft -= 1
    }

    /// Refuses `bytes` more than are left, without spending them.
    func check(bytes: Int) throws(DBusError) {
        guard bytes <= bytesLeft else {
            throw .invalidArgs("The message is larger than \(limits.bytes) bytes, the most this service reads from one message.")
        }
    }

    mutating func spend(bytes: Int) throws(DBusError) {
        try check(bytes: bytes)
        bytesLeft -= bytes
    }

    /// A string of `length` bytes: its length word, its bytes and the NUL after them.
    mutating func spend(string length: Int) throws(DBusError) {
        guard length <= limits.stringBytes else {
            throw .invalidArgs("A string in the message is longer than \(limits.stringBytes) bytes, the most this service reads in one string.")
        }
        try spend(bytes: length + 5)
    }

    mutating func enter() throws(DBusError) {
        guard depth < limits.depth else {
            throw .invalidArgs("The message nests containers more than \(limits.depth) deep, the most this service reads.")
        }
        depth += 1
    }

    mutating func leave() {
        depth -= 1
    }
}
