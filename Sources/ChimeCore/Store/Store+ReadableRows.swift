import FoundationEssentials

/// Reading a damaged file row by row: a damaged page costs the rows on it, never the rest.
extension Store {
    /// What copying found.
    struct Copied {
        var notificationRows = 0
        var notificationRowids: Set<Int64> = []
        var scheduledRows = 0
        /// Whether the notification table was read without damage.
        var notificationComplete = true
    }

    /// Copies every readable row of the damaged file's tables into a new store at
    /// `temporary`, table by table and row by row: a damaged page costs the rows on it,
    /// never the rest. userInfo is left out: it is rebuilt from the notifications.
    /// Reading and writing are two connections: a read that meets damage leaves the
    /// writing one untouched. Nil when the damaged file cannot be read after all; errors
    /// writing (a full disk) are thrown.
    static func copyReadableRows(of url: URL, tables: [String], into temporary: URL) throws -> Copied? {
        let source: Database
        do { source = try Database(path: url.path) } catch { return nil }
        defer { source.close() }
        let destination = try openDatabase(temporary)
        defer { destination.close() }
        let ours = Set(try String.fetchAll(destination, sql: "SELECT name FROM sqlite_master WHERE type = 'table'"))
        var copied = Copied()
        for table in tables where ours.contains(table) && table != "userInfo" && table != "grdb_migrations" {
            let quoted = table.quotedIdentifier
            guard let shape = try? tableShape(quoted, in: source) else { continue }
            let columns = try String.fetchAll(destination, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table])
                .filter(shape.columns.contains)
            guard !columns.isEmpty else { continue }
            let list = columns.map(\.quotedIdentifier).joined(separator: ", ")
            let marks = columns.map { _ in "?" }.joined(separator: ", ")
            var complete = true
            if shape.hasRowid {
                var start: Int64? = Int64.min
                while let from = start {
                    // Read outside a transaction: the end of a read transaction can report
                    // the damage its reads already met, and lose the chunk with it.
                    let chunk = readChunk(source, table: quoted, columns: list, from: from)
                    complete = complete && chunk.complete
                    start = chunk.next
                    try destination.inTransaction {
                        let insert = try destination.cachedStatement(sql: "INSERT OR IGNORE INTO \(quoted) (rowid, \(list)) VALUES (?, \(marks))")
                        for row in chunk.rows { try insert.execute(arguments: row.values) }
                    }
                    if table == "notification" {
                        for row in chunk.rows {
                            copied.notificationRows += 1
                            if let rowid = try? row[0] as Int64 { copied.notificationRowids.insert(rowid) }
                            if (try? row["state"] as String) == "scheduled" { copied.scheduledRows += 1 }
                        }
                    }
                }
            } else {
                // Without rowid: in the key's order from both ends, as a damaged page
                // stops a scan and what lies past it can still be read backwards.
                var rows: [Row] = []
                complete = false
                for order in ["ASC", "DESC"] where !complete {
                    let ordering = shape.key.isEmpty ? "" : " ORDER BY " + shape.key.map { "\($0) \(order)" }.joined(separator: ", ")
                    complete = readUntilDamage(source, sql: "SELECT \(list) FROM \(quoted)\(ordering)") { rows.append($0) }
                }
                try destination.inTransaction {
                    let insert = try destination.makeStatement(sql: "INSERT OR IGNORE INTO \(quoted) (\(list)) VALUES (\(marks))")
                    for row in rows { try insert.execute(arguments: row.values) }
                }
            }
            if table == "notification" { copied.notificationComplete = complete }
        }
        return copied
    }

    /// A damaged file's table as its schema (not its pages) says: its columns, its key's
    /// columns in order (quoted), and whether it has rowids.
    private static func tableShape(_ quoted: String, in db: Database) throws -> (columns: Set<String>, key: [String], hasRowid: Bool) {
        let info = try Row.fetchAll(db, sql: "PRAGMA table_info(\(quoted))")
        let columns = Set(try info.map { try $0["name"] as String })
        let key = try info.map { row in (position: try row["pk"] as Int, name: try row["name"] as String) }
            .filter { $0.position > 0 }.sorted { $0.position < $1.position }.map(\.name.quotedIdentifier)
        let hasRowid = (try? db.makeStatement(sql: "SELECT rowid FROM \(quoted) LIMIT 0")) != nil
        return (columns, key, hasRowid)
    }

    /// Up to `limit` readable rows from rowid `start` on, and where to go on from (nil at
    /// the end). A scan stops at a damaged page; the walk then looks for the first rowid
    /// past it that can be read and goes on from there.
    static func readChunk(_ db: Database, table: String, columns: String, from start: Int64,
                          limit: Int = 1000) -> (rows: [Row], next: Int64?, complete: Bool) {
        var rows: [Row] = []
        var start = start
        var complete = true
        while rows.count < limit {
            let wanted = limit - rows.count
            var got = 0
            do {
                let cursor = try Row.fetchCursor(db, sql: "SELECT rowid, \(columns) FROM \(table) WHERE rowid >= ? ORDER BY rowid LIMIT ?",
                                                 arguments: [start, wanted])
                while let row = try cursor.next() {
                    rows.append(row)
                    got += 1
                    let rowid: Int64 = try row[0]
                    guard rowid < Int64.max else { return (rows, nil, complete) }
                    start = rowid + 1
                }
                if got < wanted { return (rows, nil, complete) }
            } catch {
                complete = false
                guard let next = firstReadableRowid(db, table: table, after: start) else { return (rows, nil, false) }
                start = next
            }
        }
        return (rows, start, complete)
    }

    /// The smallest rowid after `failed` from which the table can be read again; nil when
    /// none can. A seek to a rowid reads the leaf page that would hold it, so "can be read
    /// from x" fails for every x up to the end of a damaged page and holds past it. Step
    /// by one first (a page holds at most a few hundred rows), then in growing strides.
    static func firstReadableRowid(_ db: Database, table: String, after failed: Int64) -> Int64? {
        func readable(from rowid: Int64) -> Bool {
            do {
                _ = try Row.fetchOne(db, sql: "SELECT rowid FROM \(table) WHERE rowid >= ? ORDER BY rowid LIMIT 1", arguments: [rowid])
                return true
            } catch {
                return false
            }
        }
        var low = failed
        var high: Int64
        var stride: Int64 = 1
        var steps = 0
        while true {
            let (candidate, overflow) = low.addingReportingOverflow(stride)
            if overflow { return nil }
            if readable(from: candidate) {
                high = candidate
                break
            }
            low = candidate
            steps += 1
            if steps > 10_000 { stride = stride > Int64.max / 2 ? Int64.max : stride * 2 }
        }
        // Strides may overshoot the first readable rowid: narrow it down.
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if readable(from: middle) { high = middle } else { low = middle }
        }
        return high
    }
}
