#include "CDesktopLibs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// The C types are declared here by their ABI only, so that building needs neither
// library's headers and linking names neither library.

typedef struct {
    uint32_t domain;
    int code;
    char *message;
} chime_gerror;

static char load_error[512];

// chime and chimed load on one thread; the tests call from several at once, and a load
// seen half done would look like a missing library.
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

// Runs `load` under the lock: the libraries are opened and their symbols looked up once.
static int locked(int (*load)(void))
{
    pthread_mutex_lock(&load_lock);
    int loaded = load();
    pthread_mutex_unlock(&load_lock);
    return loaded;
}

const char *chime_desktop_libs_error(void)
{
    return load_error[0] ? load_error : NULL;
}

// Opens `soname` once; NULL (with the reason kept) when it cannot be loaded.
static void *open_library(const char *soname, void **handle, int *tried)
{
    if (!*tried) {
        *tried = 1;
        *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
        if (*handle == NULL) {
            const char *reason = dlerror();
            strncpy(load_error, reason ? reason : soname, sizeof load_error - 1);
        }
    }
    return *handle;
}

// One function to look up, and the pointer that receives its address.
typedef struct {
    const char *name;
    void **slot;
} symbol;

// Opens `soname` once and looks up every symbol, all or none: when one is missing every
// slot is cleared again and `missing` is kept as the reason. Returns whether all are there.
static int load_library(const char *soname, void **handle, int *tried, const symbol *symbols, size_t count,
                        const char *missing)
{
    if (open_library(soname, handle, tried) == NULL) return 0;
    for (size_t i = 0; i < count; i++) {
        *symbols[i].slot = dlsym(*handle, symbols[i].name);
        if (*symbols[i].slot == NULL) {
            for (size_t j = 0; j < count; j++) *symbols[j].slot = NULL;
            strncpy(load_error, missing, sizeof load_error - 1);
            return 0;
        }
    }
    return 1;
}

// MARK: GIO

static void *gio;
static int gio_tried;

static struct {
    void *(*app_info_new)(const char *);
    int (*get_boolean)(void *, const char *);
    const char *const *(*list_actions)(void *);
    int (*launch)(void *, void *, void *, int, void (*)(void *), void *, void (*)(void *, int, void *), void *,
                  chime_gerror **);
    void (*unref)(void *);
    void (*error_free)(chime_gerror *);
} g;

static int load_gio_unlocked(void)
{
    if (g.unref != NULL) return 1;
    // dlsym on the handle also searches GIO's own dependencies: GObject and GLib.
    const symbol symbols[] = {
        {"g_desktop_app_info_new", (void **)&g.app_info_new},
        {"g_desktop_app_info_get_boolean", (void **)&g.get_boolean},
        {"g_desktop_app_info_list_actions", (void **)&g.list_actions},
        {"g_desktop_app_info_launch_uris_as_manager", (void **)&g.launch},
        {"g_error_free", (void **)&g.error_free},
        {"g_object_unref", (void **)&g.unref},
    };
    return load_library("libgio-2.0.so.0", &gio, &gio_tried, symbols, sizeof symbols / sizeof *symbols,
                        "libgio-2.0.so.0 lacks GDesktopAppInfo");
}

static int load_gio(void) { return locked(load_gio_unlocked); }

void *chime_app_info_new(const char *desktop_id)
{
    return load_gio() ? g.app_info_new(desktop_id) : NULL;
}

int chime_app_info_get_boolean(void *info, const char *key)
{
    return load_gio() ? g.get_boolean(info, key) : 0;
}

const char *const *chime_app_info_list_actions(void *info)
{
    return load_gio() ? g.list_actions(info) : NULL;
}

// A GDesktopAppLaunchCallback: GIO reports the pid of the process it started.
static void record_pid(void *info, int pid, void *data)
{
    (void)info;
    *(int *)data = pid;
}

int chime_app_info_launch(void *info, void (*child_setup)(void *), void *child_setup_data, int *pid,
                          char **error_message)
{
    if (pid) *pid = 0;
    if (!load_gio()) {
        if (error_message) *error_message = strdup(load_error);
        return 0;
    }
    enum { G_SPAWN_SEARCH_PATH = 1 << 2 };
    chime_gerror *error = NULL;
    int launched = g.launch(info, NULL, NULL, G_SPAWN_SEARCH_PATH, child_setup, child_setup_data,
                            pid ? record_pid : NULL, pid, &error);
    if (!launched && error_message) {
        *error_message = strdup(error && error->message ? error->message : "unknown error");
    }
    if (error) g.error_free(error);
    return launched;
}

void chime_app_info_free(void *info)
{
    if (info && load_gio()) g.unref(info);
}

// MARK: GLib: GKeyFile

static void *glib;
static int glib_tried;

static struct {
    void *(*new_file)(void);
    void (*unref)(void *);
    int (*load_from_data)(void *, const char *, size_t, int, chime_gerror **);
    char **(*get_groups)(void *, size_t *);
    char **(*get_keys)(void *, const char *, size_t *, chime_gerror **);
    int (*has_key)(void *, const char *, const char *, chime_gerror **);
    char *(*get_string)(void *, const char *, const char *, chime_gerror **);
    char **(*get_string_list)(void *, const char *, const char *, size_t *, chime_gerror **);
    void (*free)(void *);
    void (*strfreev)(char **);
    void (*error_free)(chime_gerror *);
} kf;

static int load_glib_unlocked(void)
{
    if (kf.error_free != NULL) return 1;
    const symbol symbols[] = {
        {"g_key_file_new", (void **)&kf.new_file},
        {"g_key_file_unref", (void **)&kf.unref},
        {"g_key_file_load_from_data", (void **)&kf.load_from_data},
        {"g_key_file_get_groups", (void **)&kf.get_groups},
        {"g_key_file_get_keys", (void **)&kf.get_keys},
        {"g_key_file_has_key", (void **)&kf.has_key},
        {"g_key_file_get_string", (void **)&kf.get_string},
        {"g_key_file_get_string_list", (void **)&kf.get_string_list},
        {"g_free", (void **)&kf.free},
        {"g_strfreev", (void **)&kf.strfreev},
        {"g_error_free", (void **)&kf.error_free},
    };
    return load_library("libglib-2.0.so.0", &glib, &glib_tried, symbols, sizeof symbols / sizeof *symbols,
                        "libglib-2.0.so.0 lacks GKeyFile");
}

static int load_glib(void) { return locked(load_glib_unlocked); }

// Hands GLib's message to the caller as malloc'd text (when it wants one), frees the error.
static void take_error(chime_gerror *error, char **error_message)
{
    if (error_message) *error_message = strdup(error && error->message ? error->message : "unknown error");
    if (error) kf.error_free(error);
}

void *chime_key_file_new(void)
{
    return load_glib() ? kf.new_file() : NULL;
}

void chime_key_file_free(void *file)
{
    if (file) kf.unref(file);
}

int chime_key_file_load(void *file, const char *data, size_t length, char **error_message)
{
    // Every `Label[LANG]=` is kept, not only the current locale's.
    enum { G_KEY_FILE_KEEP_TRANSLATIONS = 1 << 1 };
    chime_gerror *error = NULL;
    if (kf.load_from_data(file, data, length, G_KEY_FILE_KEEP_TRANSLATIONS, &error)) return 1;
    take_error(error, error_message);
    return 0;
}

char **chime_key_file_groups(void *file)
{
    return kf.get_groups(file, NULL);
}

char **chime_key_file_keys(void *file, const char *group)
{
    chime_gerror *error = NULL;
    char **keys = kf.get_keys(file, group, NULL, &error);
    if (error) kf.error_free(error);
    return keys;
}

int chime_key_file_has_key(void *file, const char *group, const char *key)
{
    return kf.has_key(file, group, key, NULL);
}

char *chime_key_file_string(void *file, const char *group, const char *key, char **error_message)
{
    chime_gerror *error = NULL;
    char *value = kf.get_string(file, group, key, &error);
    if (value == NULL) take_error(error, error_message);
    return value;
}

char **chime_key_file_string_list(void *file, const char *group, const char *key, char **error_message)
{
    chime_gerror *error = NULL;
    char **list = kf.get_string_list(file, group, key, NULL, &error);
    if (list == NULL) take_error(error, error_message);
    return list;
}

void chime_key_file_string_free(char *value)
{
    if (value) kf.free(value);
}

void chime_key_file_strv_free(char **vector)
{
    if (vector) kf.strfreev(vector);
}

// MARK: libcanberra

static void *canberra;
static int canberra_tried;

static struct {
    int (*context_create)(void **);
    int (*context_destroy)(void *);
    int (*change_props_full)(void *, void *);
    int (*play_full)(void *, uint32_t, void *, void *, void *);
    int (*proplist_create)(void **);
    int (*proplist_destroy)(void *);
    int (*proplist_sets)(void *, const char *, const char *);
    const char *(*strerror)(int);
} ca;

static int load_canberra_unlocked(void)
{
    if (ca.strerror != NULL) return 1;
    const symbol symbols[] = {
        {"ca_context_create", (void **)&ca.context_create},
        {"ca_context_destroy", (void **)&ca.context_destroy},
        {"ca_context_change_props_full", (void **)&ca.change_props_full},
        {"ca_context_play_full", (void **)&ca.play_full},
        {"ca_proplist_create", (void **)&ca.proplist_create},
        {"ca_proplist_destroy", (void **)&ca.proplist_destroy},
        {"ca_proplist_sets", (void **)&ca.proplist_sets},
        {"ca_strerror", (void **)&ca.strerror},
    };
    return load_library("libcanberra.so.0", &canberra, &canberra_tried, symbols, sizeof symbols / sizeof *symbols,
                        "libcanberra.so.0 lacks the functions Chime uses");
}

static int load_canberra(void) { return locked(load_canberra_unlocked); }

// A property list of `count` key/value pairs, or NULL.
static void *properties(const char *const *pairs, int count)
{
    void *list = NULL;
    if (ca.proplist_create(&list) != 0 || list == NULL) return NULL;
    for (int i = 0; i < count; i++) ca.proplist_sets(list, pairs[2 * i], pairs[2 * i + 1]);
    return list;
}

void *chime_sound_open(const char *application_name, const char *application_id, int *status)
{
    if (!load_canberra()) {
        *status = CHIME_SOUND_UNAVAILABLE;
        return NULL;
    }
    void *context = NULL;
    *status = ca.context_create(&context);
    if (*status != 0 || context == NULL) return NULL;
    const char *pairs[] = {"application.name", application_name, "application.id", application_id};
    void *list = properties(pairs, 2);
    if (list) {
        ca.change_props_full(context, list);
        ca.proplist_destroy(list);
    }
    return context;
}

int chime_sound_play(void *context, const char *key, const char *value, const char *description)
{
    const char *pairs[] = {key, value, "event.description", description};
    void *list = properties(pairs, 2);
    int status = ca.play_full(context, 0, list, NULL, NULL);
    if (list) ca.proplist_destroy(list);
    return status;
}

void chime_sound_close(void *context)
{
    if (context) ca.context_destroy(context);
}

const char *chime_sound_strerror(int code)
{
    if (code == CHIME_SOUND_UNAVAILABLE) {
        const char *reason = chime_desktop_libs_error();
        return reason ? reason : "libcanberra.so.0 cannot be loaded";
    }
    return load_canberra() ? ca.strerror(code) : "libcanberra.so.0 cannot be loaded";
}
