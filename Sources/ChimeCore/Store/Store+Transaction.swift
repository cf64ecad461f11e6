extension Store {
    /// One write transaction of the store, open for the length of a ``Store/write(_:)``
    /// body. Every change of the store takes one, so its callers group changes into one
    /// commit without SQLite showing through: the store stays the one place that writes.
    public struct Transaction {
        /// The connection, inside its transaction; valid only until the body returns.
        let db: Database

        /// Runs `change` in a savepoint of its own: when it throws, what it wrote is
        /// rolled back and the error rethrown, and the rest of the transaction stays.
        public func inSavepoint(_ change: (Transaction) throws -> Void) throws {
            try db.inSavepoint { try change(self) }
        }

        /// Whether the transaction is still open. Some SQLite errors (a full disk, an
        /// I/O error) end the whole transaction, not only the savepoint that met them:
        /// then nothing written in it is committed.
        public var isOpen: Bool { db.isInsideTransaction }
    }
}
