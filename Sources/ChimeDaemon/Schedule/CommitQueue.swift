import ChimeCore
import EventLoop

/// Group commit: changes staged while the loop dispatches one batch of calls are
/// written in one transaction before the loop sleeps again, and only then answered.
///
/// A pipelining client gets one fsync per batch instead of one per call, and every
/// caller still hears back only after its change is on disk. Changes in a batch come
/// from different callers, so each runs in a savepoint of its own: one that throws is
/// rolled back alone and reported to its own caller, and the others commit regardless.
final class CommitQueue {
    private let store: Store
    private var staged: [(change: (Store.Transaction) throws -> Void, done: (Result<Void, StoreError>) -> Void)] = []
    private var hook: Source?

    /// Must be created after the bus connection is attached, so its hook runs after dispatch.
    init(store: Store, loop: EventLoop) {
        self.store = store
        hook = loop.prepare { [unowned self] in self.commit() }
    }

    /// Stages `change`; `done` runs after the transaction that carries it, with the
    /// change's own error if it threw, or the transaction's if that failed.
    func stage(_ change: @escaping (Store.Transaction) throws -> Void, done: @escaping (Result<Void, StoreError>) -> Void) {
        staged.append((change, done))
    }

    /// Writes everything staged; runs by itself before each wait of the loop.
    func commit() {
        guard !staged.isEmpty else { return }
        let batch = staged
        staged.removeAll()
        // A change's own failure, by its place in the batch.
        var failures: [Int: StoreError] = [:]
        let result: Result<Void, StoreError>
        do {
            try store.write { transaction in
                for (index, item) in batch.enumerated() {
                    do {
                        try transaction.inSavepoint(item.change)
                    } catch {
                        failures[index] = .failed("\(error)")
                        // Some SQLite errors (a full disk, I/O) end the whole transaction:
                        // then nothing of the batch is written, and everyone hears so.
                        if !transaction.isOpen { throw error }
                    }
                }
            }
            result = .success(())
        } catch {
            result = .failure(error)
        }
        for (index, item) in batch.enumerated() { item.done(failures[index].map { .failure($0) } ?? result) }
    }
}
