#ifndef CHIME_CGLIB_SHIM_H
#define CHIME_CGLIB_SHIM_H

// GKeyFile reads the config. GIO (desktop entries) is loaded on first use instead: see
// CDesktopLibs.
#include <glib.h>

#endif
