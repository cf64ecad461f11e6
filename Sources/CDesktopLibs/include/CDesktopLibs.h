#ifndef CHIME_DESKTOP_LIBS_H
#define CHIME_DESKTOP_LIBS_H

#include <stddef.h>

// GIO's desktop-entry launching, libcanberra and GLib's key files, for chimed, loaded
// with dlopen on first use.
//
// Linked, GIO, libcanberra and the twenty-odd libraries they pull in (GObject's type
// system, libmount, libselinux, libsystemd, libgcrypt, the Vorbis decoders…) cost chimed
// about 3.5 ms at every start, and a first call through D-Bus activation waits for that;
// most runs need neither. GLib alone (and libpcre2 with it) cost 0.3 ms, for a config
// that most users never write. Every function reports a library that cannot be loaded as a
// failure, and chime_desktop_libs_error says why.

/// Why the last library failed to load (dlerror's text), or NULL.
const char *chime_desktop_libs_error(void);

// MARK: GIO: GDesktopAppInfo

/// g_desktop_app_info_new: NULL for no such entry, or no GIO.
void *chime_app_info_new(const char *desktop_id);
/// g_desktop_app_info_get_boolean.
int chime_app_info_get_boolean(void *info, const char *key);
/// g_desktop_app_info_list_actions: NULL-terminated, owned by `info`.
const char *const *chime_app_info_list_actions(void *info);
/// g_desktop_app_info_launch_uris_as_manager with no URIs, no launch context and
/// G_SPAWN_SEARCH_PATH; `child_setup(child_setup_data)` runs in the app's process before
/// exec. Stores the pid GIO reports in `pid` (0 when it reports none; without
/// G_SPAWN_DO_NOT_REAP_CHILD that is the app itself, not GLib's intermediate child).
/// On failure returns 0 and, if `error_message` is not NULL, stores a malloc'd reason
/// there (free it).
int chime_app_info_launch(void *info, void (*child_setup)(void *), void *child_setup_data, int *pid,
                          char **error_message);
/// g_object_unref.
void chime_app_info_free(void *info);

// MARK: GLib: GKeyFile

/// g_key_file_new: NULL when GLib cannot be loaded (chime_desktop_libs_error says why).
void *chime_key_file_new(void);
/// g_key_file_unref.
void chime_key_file_free(void *file);
/// g_key_file_load_from_data, keeping every translation of a key. On failure returns 0
/// and, if `error_message` is not NULL, stores GLib's malloc'd message there (free it).
int chime_key_file_load(void *file, const char *data, size_t length, char **error_message);
/// g_key_file_get_groups, in the file's order: free with chime_key_file_strv_free.
char **chime_key_file_groups(void *file);
/// g_key_file_get_keys, NULL for no such group: free with chime_key_file_strv_free.
char **chime_key_file_keys(void *file, const char *group);
/// g_key_file_has_key.
int chime_key_file_has_key(void *file, const char *group, const char *key);
/// g_key_file_get_string (free with chime_key_file_string_free); NULL, with GLib's
/// malloc'd message in `error_message`, when it cannot be read.
char *chime_key_file_string(void *file, const char *group, const char *key, char **error_message);
/// g_key_file_get_string_list (`;`-separated, `\;` unescaped; free with
/// chime_key_file_strv_free); NULL, with GLib's message, when it cannot be read.
char **chime_key_file_string_list(void *file, const char *group, const char *key, char **error_message);
void chime_key_file_string_free(char *value);
void chime_key_file_strv_free(char **vector);

// MARK: libcanberra

/// The code chime_sound_open stores in `status` when libcanberra cannot be loaded.
#define CHIME_SOUND_UNAVAILABLE (-1000)

/// ca_context_create, then the application name and id as context properties. NULL on
/// failure, with libcanberra's error code (or CHIME_SOUND_UNAVAILABLE) in `status`.
void *chime_sound_open(const char *application_name, const char *application_id, int *status);
/// ca_context_play_full with one property `key` = `value` (event.id for a theme sound,
/// media.filename for a file) and event.description; returns libcanberra's code.
int chime_sound_play(void *context, const char *key, const char *value, const char *description);
/// ca_context_destroy.
void chime_sound_close(void *context);
/// ca_strerror, or a sentence of ours for CHIME_SOUND_UNAVAILABLE.
const char *chime_sound_strerror(int code);

#endif
