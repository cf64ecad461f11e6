import ChimeCore
import EventLoop
import GRDB

/// Group commit: changes staged while the loop dispatches one batch of calls are
/// written in one transaction before the loop sleeps again, and only then answered.
///
/// A pipelining client gets one fsync per batch instead of one per call, and every
/// caller still hears back only after its change is on disk.
final class CommitQueue {
    private let store: Store
    private var staged: [(change: (Database) throws -> Void, done: (Result<Void, StoreError>) -> Void)] = []
    private var hook: Source?

    /// Must be created after the bus connection is attached, so its hook runs after dispatch.
    init(store: Store, loop: EventLoop) {
        self.store = store
        hook = loop.prepare { [unowned self] in self.commit() }
    }

    /// Stages `change`; `done` runs after the transaction that carries it.
    func stage(_ change: @escaping (Database) throws -> Void, done: @escaping (Result<Void, StoreError>) -> Void) {
        staged.append((change, done))
    }

    /// Writes everything staged; runs by itself before each wait of the loop.
    func commit() {
        guard !staged.isEmpty else { return }
        let batch = staged
        staged.removeAll()
        let result: Result<Void, StoreError>
        do {
            try store.write { db in
                for item in batch { try item.change(db) }
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        for item in batch { item.done(result) }
    }
}
