#ifndef CHIME_CICU_H
#define CHIME_CICU_H

// Month and year steps in the calendars chimed does not count itself (chinese, coptic, dangi,
// ethiopic, indian, the islamic family, persian) are ICU's work. Linking ICU would cost every
// chimed its start-up and memory for calendars few rules name, and its soname carries its
// major version (libicui18n.so.72 on Debian 12, .74 on Ubuntu 24.04), which a binary built on
// one system would pin. So CICU.c opens the system's ICU with dlopen the first time such a
// calendar is used, as CICal opens libical; no ICU header is needed to build it.
//
// The library handle and one UCalendar per calendar are cached in statics, and every call
// moves that UCalendar: the calls take one lock. chime_icu_error's text is the last call's.

#include <stdint.h>

/// Opens the system's ICU if it is not open yet (tried once); whether it is.
int chime_icu_available(void);
/// Why ICU could not be opened; else why the last call returned -1, or NULL.
const char *chime_icu_error(void);
/// The ICU version in use, as "72.1", or NULL when ICU is not loaded.
const char *chime_icu_version(void);

/// `utcSeconds` (a wall-clock time read as UTC seconds since 1970) moved by `amount` months
/// (`field` 0) or years (`field` 1) in the calendar with CLDR keyword `name` ("chinese",
/// "coptic", "dangi", "ethiopic", "indian", "islamic", "islamic-civil", "islamic-tbla",
/// "islamic-umalqura", "persian"); a day the target month lacks becomes its last.
/// 0 and `*result` set, or -1.
int chime_icu_add(const char *name, int64_t utcSeconds, int field, int32_t amount, int64_t *result);

/// Whole months (`field` 0) or years (`field` 1) from `from` to `to`, negative when `to` is
/// earlier: the most that can be added to `from` without passing `to`. 0 and `*result`, or -1.
int chime_icu_difference(const char *name, int64_t from, int64_t to, int field, int32_t *result);

#endif
