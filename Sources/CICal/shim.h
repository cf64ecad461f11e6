#ifndef CHIME_CICAL_SHIM_H
#define CHIME_CICAL_SHIM_H

// libical parses and writes the .ics files of chime import and chime export (RFC 5545):
// line folding, escaping, VTIMEZONE and RRULE are its work, not ours.
#include <libical/ical.h>

#endif
