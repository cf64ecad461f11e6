#ifndef CHIME_CGETTEXT_H
#define CHIME_CGETTEXT_H

// Glibc's Swift module leaves out <libintl.h>: gettext is part of glibc itself, so these
// are its own functions, declared for Swift.

#include <libintl.h>
#include <locale.h>

/// LC_MESSAGES, which Swift cannot read from glibc's macro chain.
extern const int cgettext_LC_MESSAGES;

#endif
