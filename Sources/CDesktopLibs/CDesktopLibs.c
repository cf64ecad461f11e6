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
