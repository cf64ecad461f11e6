#ifndef CHIME_CGLIB_SHIM_H
#define CHIME_CGLIB_SHIM_H

// GKeyFile reads the config; GDesktopAppInfo finds and launches an app from its
// desktop entry. gdesktopappinfo.h lives in gio-unix-2.0, outside gio.h.
#include <glib.h>
#include <gio/gio.h>
#include <gio/gdesktopappinfo.h>

#endif
