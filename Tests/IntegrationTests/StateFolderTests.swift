import Foundation
import Testing
import TestSupport

/// The history is state, not data (XDG Base Directory spec): it lives in
/// `$XDG_STATE_HOME/chime`, and a store of an earlier version gives its history up once.
@Suite(.timeLimit(.minutes(10)))
struct StateFolderTests {
    /// Runs Debian's python3 on `script` with `arguments`; its standard output.
    func python(_ session: TestSession, _ script: String, _ arguments: [String]) throws -> String {
        let result = try session.run(["/usr/bin/python3", "-c", script] + arguments)
        guard result.status == 0 else { throw TestFailure.failed("python3 failed: \(result)") }
        return result.stdout
    }

    /// The tables of the SQLite file at `path`.
    func tables(_ session: TestSession, _ path: URL) throws -> [String] {
        try python(session, """
            import sqlite3, sys
            for (name,) in sqlite3.connect(sys.argv[1]).execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
                print(name)
            """, [path.path]).split(separator: "\n").map(String.init)
    }

    @Test func historyInTheStoreOfAnEarlierVersionMovesToTheStateFolderOnce() throws {
        let session = try TestSession()
        let cancelled = try session.add("Plants", "--in", "1h")
        let bins = try session.add("Bins", "--in", "2h")
        #expect(try session.run(["chime", "cancel", cancelled]).status == 0)
        let before = try session.run(["chime", "log"]).stdout
        #expect(before.split(separator: "\n").count == 2, "\(before)")
        try session.stopDaemon()

        // Back to the layout of earlier versions: the history in the store, no state folder.
        let history = session.stateDirectory.appendingPathComponent("history.sqlite")
        _ = try python(session, """
            import sqlite3, sys
            store = sqlite3.connect(sys.argv[1])
            store.execute("ATTACH ? AS state", (sys.argv[2],))
            store.executescript('''
                BEGIN;
                CREATE TABLE main.history (seq INTEGER PRIMARY KEY, time REAL NOT NULL, notificationId TEXT NOT NULL,
                    lineage TEXT NOT NULL, event TEXT NOT NULL, actionKey TEXT, copyId TEXT, title TEXT NOT NULL, detail TEXT NOT NULL);
                CREATE INDEX main.history_lineage ON history(lineage);
                INSERT INTO main.history SELECT * FROM state.history;
                DELETE FROM grdb_migrations WHERE identifier = 'v6: history in the state folder';
                COMMIT;
                ''')
            """, [session.storeFile.path, history.path])
        try FileManager.default.removeItem(at: session.stateDirectory)
        #expect(try tables(session, session.storeFile).contains("history"))

        // The first call starts chimed on the old layout.
        #expect(try session.run(["chime", "log"]).stdout == before)
        #expect(try tables(session, history) == ["history"])
        #expect(try !tables(session, session.storeFile).contains("history"))
        let mode = try FileManager.default.attributesOfItem(atPath: session.stateDirectory.path)[.posixPermissions] as? Int
        #expect(mode == 0o700)

        // Once: a restart finds nothing more to move, and new events follow the old ones.
        try session.stopDaemon()
        #expect(try session.run(["chime", "cancel", bins]).status == 0)
        let after = try session.run(["chime", "log"]).stdout
        #expect(after.hasSuffix(before.split(separator: "\n").dropFirst().map { $0 + "\n" }.joined()), "\(after)")
        #expect(after.split(separator: "\n").count == 3 && after.contains("Bins"), "\(after)")
    }

    @Test func withoutXDGStateHomeTheHistoryIsInDotLocalState() throws {
        let session = try TestSession()
        let home = session.directory.appendingPathComponent("home")
        var environment = session.environment
        environment["XDG_STATE_HOME"] = nil
        environment["HOME"] = home.path
        let daemon = try Spawned([binDirectory.appendingPathComponent("chimed").path], environment: environment)
        defer { daemon.stop() }
        try session.waitForName("io.github.chime.Chime")
        _ = try session.add("Plants", "--in", "1h")
        let history = home.appendingPathComponent(".local/state/chime/history.sqlite")
        #expect(FileManager.default.fileExists(atPath: history.path))
        #expect(!FileManager.default.fileExists(atPath: session.stateDirectory.path))
        #expect(try !tables(session, session.storeFile).contains("history"))
    }
}
