#include "CICU.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

// ICU's C types and constants, declared here so that no ICU header is needed to build. All
// are ICU's stable C API (the newest, ucal_getFieldDifference, since ICU 4.8, older than
// the oldest major searched), and were checked against ICU 72's headers.
typedef double UDate;        // milliseconds since 1970 (utypes.h)
typedef uint16_t UChar;      // a UTF-16 code unit (umachine.h)
typedef int32_t UErrorCode;  // > 0 a failure, < 0 only a warning: U_FAILURE (utypes.h)
typedef void UCalendar;      // opaque (ucal.h: typedef void* UCalendar)
typedef uint8_t UVersionInfo[4];

#define U_FAILURE(status) ((status) > 0)

// ucal.h: enum UCalendarType, where UCAL_TRADITIONAL (= UCAL_DEFAULT) opens the locale's
// own calendar, the one its @calendar keyword names; UCAL_GREGORIAN (1) would ignore it.
enum { UCAL_DEFAULT = 0 };
// ucal.h: enum UCalendarDateFields.
enum { UCAL_ERA = 0, UCAL_YEAR = 1, UCAL_MONTH = 2, UCAL_DATE = 5, UCAL_EXTENDED_YEAR = 19, UCAL_IS_LEAP_MONTH = 22 };

static struct {
    UCalendar *(*open)(const UChar *zoneID, int32_t length, const char *locale, int32_t type, UErrorCode *status);
    void (*close)(UCalendar *calendar);
    const char *(*getType)(const UCalendar *calendar, UErrorCode *status);
    void (*setMillis)(UCalendar *calendar, UDate date, UErrorCode *status);
    UDate (*getMillis)(const UCalendar *calendar, UErrorCode *status);
    void (*add)(UCalendar *calendar, int32_t field, int32_t amount, UErrorCode *status);
    int32_t (*getFieldDifference)(UCalendar *calendar, UDate target, int32_t field, UErrorCode *status);
    void (*getVersion)(UVersionInfo version);
    const char *(*errorName)(UErrorCode status);
} icu;

static void *handle;
static int tried;
static char load_error[160];
static char call_error[160];
static char version[16];

// Newest first, so that a system with two ICUs installed uses the newer. ICU has numbered
// its majors 49, 50, … since 2012 (4.8 was the last "4.x"), about two a year.
enum { NEWEST_MAJOR = 90, OLDEST_MAJOR = 50 };

// ICU renames every C function with its major version (ucal_open_72) unless it was built
// with --disable-renaming; dlsym on a handle searches that library and its dependencies
// only, which is how u_getVersion and u_errorName are found in libicuuc.
static void *symbol(void *library, const char *name, int major)
{
    char renamed[64];
    snprintf(renamed, sizeof renamed, "%s_%d", name, major);
    void *found = dlsym(library, renamed);
    return found ? found : dlsym(library, name);
}

static int resolve(void *library, int major)
{
#define RESOLVE(field, name) \
    if ((*(void **)&icu.field = symbol(library, name, major)) == NULL) { \
        snprintf(load_error, sizeof load_error, "libicui18n.so.%d has no %s_%d", major, name, major); \
        return 0; \
    }
    RESOLVE(open, "ucal_open")
    RESOLVE(close, "ucal_close")
    RESOLVE(getType, "ucal_getType")
    RESOLVE(setMillis, "ucal_setMillis")
    RESOLVE(getMillis, "ucal_getMillis")
    RESOLVE(add, "ucal_add")
    RESOLVE(getFieldDifference, "ucal_getFieldDifference")
    RESOLVE(getVersion, "u_getVersion")
    RESOLVE(errorName, "u_errorName")
#undef RESOLVE
    UVersionInfo info = {0};
    icu.getVersion(info);
    // A library whose soname and version disagree was not built the way its name says.
    if (info[0] != major) {
        snprintf(load_error, sizeof load_error, "libicui18n.so.%d reports ICU version %d", major, info[0]);
        return 0;
    }
    if (info[2] != 0) snprintf(version, sizeof version, "%d.%d.%d", info[0], info[1], info[2]);
    else snprintf(version, sizeof version, "%d.%d", info[0], info[1]);
    return 1;
}

// One lock for the handle, the cached calendars and the last error: chimed calls from one
// thread, but its tests call from many at once, and a UCalendar moved by two is garbage.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int available(void)
{
    if (!tried) {
        tried = 1;
        for (int major = NEWEST_MAJOR; major >= OLDEST_MAJOR && handle == NULL; major--) {
            char soname[32];
            snprintf(soname, sizeof soname, "libicui18n.so.%d", major);
            void *library = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
            if (library == NULL) continue;
            if (resolve(library, major)) {
                handle = library;
                load_error[0] = 0;
            } else {
                memset(&icu, 0, sizeof icu);
                dlclose(library);
            }
        }
        if (handle == NULL && load_error[0] == 0)
            snprintf(load_error, sizeof load_error, "no ICU found: none of libicui18n.so.%d to .%d could be opened",
                     NEWEST_MAJOR, OLDEST_MAJOR);
    }
    return handle != NULL;
}

const char *chime_icu_error(void)
{
    // A missing ICU fails every call, so its reason is the one to give.
    if (tried && handle == NULL) return load_error;
    return call_error[0] ? call_error : NULL;
}

const char *chime_icu_version(void)
{
    return handle ? version : NULL;
}

static int fail(const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(call_error, sizeof call_error, format, arguments);
    va_end(arguments);
    return -1;
}

static int failed(const char *call, UErrorCode status)
{
    return fail("%s: %s (%d)", call, icu.errorName(status), (int)status);
}

// ucal_open parses the locale and builds a calendar: 2-4 us once ICU is warm (ICU 72 here),
// as much as the step itself, and up to milliseconds the first time. So each name keeps
// its calendar, and a step is a setMillis and an add.
enum { SLOTS = 16 };
static struct {
    char name[24];
    UCalendar *calendar;
} slots[SLOTS];

static UCalendar *calendar(const char *name)
{
    if (!available()) {
        fail("%s", load_error);
        return NULL;
    }
    size_t length = strlen(name);
    // The name goes into a locale ID, where '@', ';' and '=' would be read as more keywords.
    if (length == 0 || length >= sizeof slots[0].name || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-") != length) {
        fail("'%s' is not a CLDR calendar keyword", name);
        return NULL;
    }
    int slot = 0;
    for (; slot < SLOTS && slots[slot].calendar != NULL; slot++)
        if (strcmp(slots[slot].name, name) == 0) return slots[slot].calendar;
    if (slot == SLOTS) {
        fail("more than %d calendars in use", SLOTS);
        return NULL;
    }
    char locale[40];
    snprintf(locale, sizeof locale, "@calendar=%s", name);
    static const UChar utc[] = {'U', 'T', 'C'};
    UErrorCode status = 0;
    UCalendar *opened = icu.open(utc, 3, locale, UCAL_DEFAULT, &status);
    if (U_FAILURE(status) || opened == NULL) {
        failed("ucal_open", status);
        return NULL;
    }
    // An unknown keyword is no failure to ICU: it opens the Gregorian calendar instead. So
    // does an alias (ICU 72 reads "ethiopic-amete-mihret" as nothing), which is why only
    // the names ucal_getType reports back are accepted.
    const char *type = icu.getType(opened, &status);
    if (U_FAILURE(status) || type == NULL || strcmp(type, name) != 0) {
        if (U_FAILURE(status)) failed("ucal_getType", status);
        else fail("ICU %s has no calendar '%s' (it opened '%s')", version, name, type ? type : "?");
        icu.close(opened);
        return NULL;
    }
    snprintf(slots[slot].name, sizeof slots[slot].name, "%s", name);
    slots[slot].calendar = opened;
    return opened;
}

// 2^53 ms, past which a double no longer holds every millisecond: some 285 000 years,
// well inside ICU's own limits (about ±5.8 million years).
static const double LIMIT_MILLIS = 9007199254740992.0;

static int millis(int64_t seconds, UDate *result)
{
    if (seconds > (int64_t)(LIMIT_MILLIS / 1000) || seconds < -(int64_t)(LIMIT_MILLIS / 1000))
        return fail("%lld s after 1970 is out of range", (long long)seconds);
    *result = (UDate)seconds * 1000.0;
    return 0;
}

static int fieldCode(int field, int32_t *code)
{
    // UCAL_YEAR, as Foundation's .year is. In chinese and dangi it is the year within a
    // 60-year cycle (ERA counts cycles), which ICU's lenient add and difference carry across
    // cycles; its one quirk, counting backwards in coptic's era 0, ends in 284 CE.
    switch (field) {
    case 0: *code = UCAL_MONTH; return 0;
    case 1: *code = UCAL_YEAR; return 0;
    default: return fail("field %d is neither 0 (months) nor 1 (years)", field);
    }
}

static int add(const char *name, int64_t utcSeconds, int field, int32_t amount, int64_t *result)
{
    call_error[0] = 0;
    int32_t code = 0;
    UDate start = 0;
    if (fieldCode(field, &code) != 0 || millis(utcSeconds, &start) != 0) return -1;
    UCalendar *cal = calendar(name);
    if (cal == NULL) return -1;
    UErrorCode status = 0;
    icu.setMillis(cal, start, &status);
    if (U_FAILURE(status)) return failed("ucal_setMillis", status);
    // Calendar::add pins the day of the month to the target month's length (and the
    // Chinese calendar's own month add does too), as chimed wants for a 30th. Not so for a
    // year step from the 30th of a chinese or dangi leap month into a year without that leap
    // month in ICU 72 (and Foundation's 76): 4L-30 goes on to 6-1 when month 5 has 29 days,
    // where ICU 77 gives 5-29.
    icu.add(cal, code, amount, &status);
    if (U_FAILURE(status)) return failed("ucal_add", status);
    UDate moved = icu.getMillis(cal, &status);
    if (U_FAILURE(status)) return failed("ucal_getMillis", status);
    if (!(moved > -LIMIT_MILLIS && moved < LIMIT_MILLIS)) return fail("ucal_add: %.0f ms after 1970 is out of range", moved);
    // Rounded down, as the caller reads seconds (a cast would round toward 1970); written
    // out rather than with floor() so that this target needs no libm.
    int64_t seconds = (int64_t)(moved / 1000.0);
    if ((double)seconds * 1000.0 > moved) seconds--;
    *result = seconds;
    return 0;
}

static int difference(const char *name, int64_t from, int64_t to, int field, int32_t *result)
{
    call_error[0] = 0;
    int32_t code = 0;
    UDate start = 0, end = 0;
    if (fieldCode(field, &code) != 0 || millis(from, &start) != 0 || millis(to, &end) != 0) return -1;
    UCalendar *cal = calendar(name);
    if (cal == NULL) return -1;
    UErrorCode status = 0;
    icu.setMillis(cal, start, &status);
    if (U_FAILURE(status)) return failed("ucal_setMillis", status);
    // getFieldDifference also moves the calendar by the difference it returns; the next
    // call sets its own time, so that side effect is harmless here.
    int32_t difference = icu.getFieldDifference(cal, end, code, &status);
    if (U_FAILURE(status)) return failed("ucal_getFieldDifference", status);
    *result = difference;
    return 0;
}

int chime_icu_available(void)
{
    pthread_mutex_lock(&lock);
    int result = available();
    pthread_mutex_unlock(&lock);
    return result;
}

int chime_icu_add(const char *name, int64_t utcSeconds, int field, int32_t amount, int64_t *result)
{
    pthread_mutex_lock(&lock);
    int status = add(name, utcSeconds, field, amount, result);
    pthread_mutex_unlock(&lock);
    return status;
}

int chime_icu_difference(const char *name, int64_t from, int64_t to, int field, int32_t *result)
{
    pthread_mutex_lock(&lock);
    int status = difference(name, from, to, field, result);
    pthread_mutex_unlock(&lock);
    return status;
}
