#include <sqlite3.h>

// Swift cannot import SQLITE_TRANSIENT (a cast of -1 to a function pointer): binding
// through these makes SQLite copy the bytes, which Swift may move once the call returns.
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int csqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}
