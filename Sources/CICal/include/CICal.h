#ifndef CHIME_CICAL_H
#define CHIME_CICAL_H

// libical parses and writes the .ics texts of chimed's ImportICalendar, ImportICalendarPart
// and ExportICalendar (RFC 5545), which chime import and chime export call: line folding,
// escaping, VTIMEZONE and RRULE are its work, not Chime's. chime itself loads no libical.
//
// It is opened with dlopen on first use, as CDesktopLibs opens GIO: linked, libical and
// what it pulls in (ICU, libstdc++, Berkeley DB for libicalss) would cost chimed's
// start-up and memory; only import and export need it.
// CICal.c defines the libical functions chimed calls; the declarations are libical's.
#include <libical/ical.h>

/// Opens libical.so.3 if it is not open yet; whether it is.
int chime_ical_available(void);
/// Why libical could not be opened (dlerror's text), or NULL.
const char *chime_ical_error(void);

#endif
