import FoundationEssentials

/// The SQLite file: how it is opened, and the migrations that bring any older one up to date.
extension Store {
    /// Opens and migrates the database at `url`, with the history database at `history`
    /// attached as `state`; throws ``Damage`` when the store's quick check fails. A damaged
    /// history is set aside and started anew, and `historyNotice` says so.
    static func openDatabase(_ url: URL, history: URL, deferring: Bool = false) throws
        -> (database: Database, historyNotice: String?, historyAttached: Bool) {
        var notice: String?
        var attached = false
        let database = try openDatabase(url) { db, migrating in
            guard migrating || !deferring else { return }
            try attachHistory(history, to: db, notice: &notice)
            attached = true
        }
        return (database, notice, attached)
    }

    /// Opens and migrates the database at `url`, with `attach` run on its connection
    /// first (told whether a migration is to run); throws ``Damage`` when its quick check
    /// fails.
    static func openDatabase(_ url: URL, attach: (Database, _ migrating: Bool) throws -> Void = { _, _ in }) throws -> Database {
        let db = try Database(path: url.path)
        do {
            // WAL with FULL sync: a commit is on disk when it returns, and costs one fsync.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.texts("PRAGMA journal_mode = WAL")
            try db.keepWALFiles(of: "main")
            // A damaged file fails here rather than at the first reminder: damage in
            // the middle of a table is found only by reading every page. Measured here:
            // 0.6 ms for 300 reminders, 60 to 100 ms for 100,000 (a 39 MB store). Only
            // `main`: an attached history was checked as it was attached.
            let problems = try db.texts("PRAGMA main.quick_check")
            if problems != ["ok"] { throw Damage(details: problems.prefix(3).joined(separator: "; ")) }
            // After the store's check, so that a damaged store is recovered before its
            // history is looked at. What is attached stays for the connection's life; the
            // migrations need it (v6 moves the history there).
            let pending = try pendingMigrations(db)
            try attach(db, !pending.isEmpty)
            try migrate(db, pending)
        } catch {
            db.close()
            throw error
        }
        return db
    }

    /// Applies `pending` (``pendingMigrations(_:)``), each in a transaction of its own.
    ///
    /// They are recorded by name in `grdb_migrations`, the table the GRDB library that
    /// kept the store until 0.4 wrote, so that every store it left goes on from where it is.
    private static func migrate(_ db: Database, _ pending: [(String, (Database) throws -> Void)]) throws {
        for (identifier, migration) in pending {
            try db.inTransaction {
                try migration(db)
                try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
            }
        }
    }

    /// The migrations `db` has not had, oldest first.
    private static func pendingMigrations(_ db: Database) throws -> [(String, (Database) throws -> Void)] {
        try db.execute(sql: "CREATE TABLE IF NOT EXISTS grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        let applied = Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"))
        return migrations.filter { !applied.contains($0.0) }
    }

    /// The migrations, oldest first, by the names they are recorded under.
    private static var migrations: [(String, (Database) throws -> Void)] {
        var migrations: [(String, (Database) throws -> Void)] = []
        func registerMigration(_ identifier: String, _ migration: @escaping (Database) throws -> Void) {
            migrations.append((identifier, migration))
        }
        registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE notification (
                    id TEXT PRIMARY KEY NOT NULL,
                    created REAL NOT NULL,
                    triggerKind TEXT NOT NULL,
                    triggerInstant REAL,
                    triggerLocal TEXT,
                    triggerZone TEXT,
                    repeatUnit TEXT,
                    repeatCount INTEGER,
                    calendar TEXT NOT NULL,
                    lateLimit REAL,
                    alert BLOB NOT NULL,
                    nextIndex INTEGER NOT NULL,
                    nextFire REAL,
                    lastFired REAL,
                    fireCount INTEGER NOT NULL DEFAULT 0,
                    state TEXT NOT NULL
                );
                CREATE INDEX notification_nextFire ON notification(nextFire) WHERE nextFire IS NOT NULL;
                CREATE TABLE userInfo (
                    notificationId TEXT NOT NULL REFERENCES notification(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (notificationId, key)
                ) WITHOUT ROWID;
                CREATE INDEX userInfo_keyValue ON userInfo(key, value);
                CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
                """)
        }
        registerMigration("v2: lineage and completion") { db in
            // origin: the notification a snoozed copy came from; completed: when Complete was pressed.
            try db.execute(sql: """
                ALTER TABLE notification ADD COLUMN origin TEXT;
                ALTER TABLE notification ADD COLUMN completed REAL;
                CREATE INDEX notification_origin ON notification(origin) WHERE origin IS NOT NULL;
                """)
        }
        registerMigration("v3: history") { db in
            // In the store until v6 moved it to the state folder (historySchema says why it is so).
            try db.execute(sql: historySchema("main"))
        }
        registerMigration("v4: deliveries") { db in
            // Occurrences that came due and are not on screen yet: re-sent at the next
            // start if chimed stops first. A row carries its own alert, since summaries
            // and notifications shown now have no row in `notification`.
            try db.execute(sql: """
                CREATE TABLE delivery (
                    seq INTEGER PRIMARY KEY,
                    notificationId TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    alert BLOB NOT NULL,
                    replacing TEXT,
                    due REAL NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX delivery_notificationId ON delivery(notificationId);
                """)
        }
        registerMigration("v5: places") { db in
            // A place trigger (triggerKind 'place') keeps its definition as JSON and where
            // the user was last known to be, so a restart does not fire it again. Added
            // columns only: older rows read them as NULL, and nothing else changes.
            try db.execute(sql: """
                ALTER TABLE notification ADD COLUMN place BLOB;
                ALTER TABLE notification ADD COLUMN placePresence TEXT;
                CREATE INDEX notification_place ON notification(state) WHERE triggerKind = 'place';
                """)
        }
        registerMigration("v6: history in the state folder") { db in
            // History is state, not data (XDG Base Directory spec): it moves to its own file
            // in $XDG_STATE_HOME/chime, in the same transaction that drops it here, so it
            // moves once. A store opened without it (a recovery's temporary) just drops it.
            if try String.fetchAll(db, sql: "SELECT name FROM pragma_database_list").contains("state") {
                try db.execute(sql: """
                    INSERT INTO state.history (time, notificationId, lineage, event, actionKey, copyId, title, detail)
                    SELECT time, notificationId, lineage, event, actionKey, copyId, title, detail FROM main.history ORDER BY seq
                    """)
            }
            try db.execute(sql: "DROP TABLE main.history")
        }
        registerMigration("v7: rrule") { db in
            // A repeat's days, count and end as an RFC 5545 RRULE, and the wall-clock times of
            // skipped occurrences (its EXDATE, comma-separated). Added columns only: older rows read them as NULL
            // and keep repeating by repeatUnit and repeatCount, which stay written for every row.
            try db.execute(sql: """
                ALTER TABLE notification ADD COLUMN rrule TEXT;
                ALTER TABLE notification ADD COLUMN skipped TEXT;
                """)
        }
        registerMigration("v8: userInfo without a foreign key") { db in
            // While userInfo referred to notification, SQLite deleted every row of either
            // one by one, even in a DELETE without WHERE: its truncate optimisation is off
            // for a table in a foreign key. A CancelAll of a million took 22 s. The cascade
            // is written out where rows go (``Store/deleteUserInfo(of:in:)``).
            try db.execute(sql: """
                CREATE TABLE userInfoV8 (
                    notificationId TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    PRIMARY KEY (notificationId, key)
                ) WITHOUT ROWID;
                INSERT INTO userInfoV8 SELECT notificationId, key, value FROM userInfo;
                DROP TABLE userInfo;
                ALTER TABLE userInfoV8 RENAME TO userInfo;
                CREATE INDEX userInfo_keyValue ON userInfo(key, value);
                """)
        }
        registerMigration("v9: due times from the index alone") { db in
            // Start-up reads every due time (``Store/dueTimes()``). Through an index of
            // nextFire alone, each of its rows cost a lookup in the table for id and
            // triggerKind: 0.9 s of a million's start-up, where reading them off an index
            // that holds them takes 0.2 s. The name stays: salvage reads it by name.
            try db.execute(sql: """
                DROP INDEX notification_nextFire;
                CREATE INDEX notification_nextFire ON notification(nextFire, id, triggerKind) WHERE nextFire IS NOT NULL;
                """)
        }
        registerMigration("v10: on screen") { db in
            // What the server shows with something to press or an expiry to keep: a
            // chimed started again takes each over (re-posted with replaces_id, so that
            // servers that send signals only to the last sender, such as dunst, send the
            // press to it). A table of its own: a cancel withdraws what waits for the
            // screen (delivery), not what is on it. `server` names the server process as
            // the bus's id and the server's unique name, which the bus never reuses.
            try db.execute(sql: """
                CREATE TABLE screen (
                    seq INTEGER PRIMARY KEY,
                    notificationId TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    alert BLOB NOT NULL,
                    due REAL NOT NULL,
                    serverId INTEGER NOT NULL,
                    server TEXT NOT NULL,
                    shownAt REAL NOT NULL
                );
                """)
        }
        registerMigration("v11: calendar links") { db in
            // What a notification made from a calendar item stands for (``CalendarLink``): an
            // item imported again updates it in place. Added columns only: older rows are
            // Chime's own and read them as NULL.
            try db.execute(sql: """
                ALTER TABLE notification ADD COLUMN linkUID TEXT;
                ALTER TABLE notification ADD COLUMN linkRecurrence TEXT;
                ALTER TABLE notification ADD COLUMN linkAlarm TEXT;
                ALTER TABLE notification ADD COLUMN linkSource TEXT;
                CREATE INDEX notification_linkUID ON notification(linkUID) WHERE linkUID IS NOT NULL;
                """)
        }
        registerMigration("v12: month ends and leads") { db in
            // monthEnds: what a monthly or yearly repeat does in a month without its day
            // (``MonthEndSkip``); rrule keeps RFC 5545's parts only, so it reads as it did.
            // NULL, as every older row has it, is the last day, which every older row took.
            // lead: seconds from each occurrence's fire time to its item's start
            // (``FireRule/lead``); the trigger columns keep the first fire time. NULL is 0:
            // older rows fire on their own wall clock, as they did.
            try db.execute(sql: """
                ALTER TABLE notification ADD COLUMN monthEnds TEXT;
                ALTER TABLE notification ADD COLUMN lead INTEGER;
                """)
        }
        registerMigration("v13: calendars") { db in
            // The calendars chimed follows (``CalendarSource``), and the index that finds what
            // each of their files made: a file changed or removed is read by its name.
            try db.execute(sql: """
                CREATE TABLE calendar (
                    name TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    location TEXT NOT NULL UNIQUE,
                    added REAL NOT NULL
                );
                CREATE INDEX notification_linkSource ON notification(linkSource) WHERE linkSource IS NOT NULL;
                """)
        }
        registerMigration("v14: CalDAV") { db in
            // caldav: how a CalDAV calendar is reached (never its password) and where its sync
            // stands. caldav_item: what was last read of each item (its ETag, and a hash of its
            // text: a server that rewrites what it stores gives a new ETag for the same item),
            // as vdirsyncer keeps its status. caldav_write: what was pressed and is still to
            // be written into an item, in order, sent when the server answers.
            try db.execute(sql: """
                CREATE TABLE caldav (
                    name TEXT PRIMARY KEY NOT NULL,
                    user TEXT NOT NULL,
                    passwordCommand TEXT,
                    ca TEXT,
                    shareDismissals INTEGER NOT NULL,
                    interval INTEGER NOT NULL,
                    syncToken TEXT,
                    lastSync REAL,
                    emptySince REAL
                );
                CREATE TABLE caldav_item (
                    calendar TEXT NOT NULL,
                    item TEXT NOT NULL,
                    etag TEXT,
                    hash TEXT NOT NULL,
                    PRIMARY KEY (calendar, item)
                ) WITHOUT ROWID;
                CREATE TABLE caldav_write (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    calendar TEXT NOT NULL,
                    item TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    uid TEXT NOT NULL,
                    recurrence TEXT NOT NULL,
                    alarm TEXT NOT NULL,
                    occurrence TEXT,
                    until REAL,
                    snoozeUID TEXT,
                    snoozeOccurrence REAL,
                    at REAL NOT NULL
                );
                """)
        }
        return migrations
    }
}
