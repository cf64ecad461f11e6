import ChimeAPI
import ChimeCore
import DBus

extension CommitQueue {
    /// Reads the store after committing what is staged, so a read sees every change made
    /// before it (a firing recorded by the timer's handler, say), not only committed ones.
    func read<T>(_ body: () throws(StoreError) -> T) throws(DBusError) -> T {
        commit()
        do { return try body() } catch { throw .failed("The store could not be read: \(error)") }
    }
}

extension DBusError {
    /// The answer to a change the store refused, after `what` ("Not scheduled"):
    /// DiskFull when the disk is full, Failed otherwise. Nothing of the change was done.
    static func refused(_ what: String, _ error: StoreError) -> DBusError {
        let name = if case .diskFull = error { ChimeError.diskFull } else { ChimeError.failed }
        return DBusError(name: name, message: "\(what): \(error.clause)")
    }
}
