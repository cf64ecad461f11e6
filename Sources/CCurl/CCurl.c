// The typed wrappers below call the variadic functions themselves; curl's compile-time
// type checks of those macros would only get in their way.
#define CURL_DISABLE_TYPECHECK
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The functions of libcurl that chimed calls, defined here with libcurl's own signatures:
// each calls the real one in libcurl.so.4, opened on first use. Swift calls them by their
// libcurl names, and a chimed never asked for a calendar over HTTP never loads libcurl.

static void *handle;
static char load_error[256];
static pthread_once_t opened = PTHREAD_ONCE_INIT;

static void chime_curl_open(void)
{
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "%s", reason ? reason : "libcurl.so.4 cannot be opened");
        return;
    }
    // curl_global_init is not safe to run beside other threads' use of libcurl (it sets up
    // OpenSSL): run once, here, before anything else can call libcurl.
    CURLcode (*global_init)(long) = (CURLcode (*)(long))dlsym(library, "curl_global_init");
    if (global_init == NULL || global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "libcurl.so.4 could not be initialised");
        return;
    }
    handle = library;
}

int chime_curl_available(void)
{
    pthread_once(&opened, chime_curl_open);
    return handle != NULL;
}

const char *chime_curl_error(void)
{
    pthread_once(&opened, chime_curl_open);
    return load_error[0] ? load_error : NULL;
}

// The real function called `name`. chimed checks chime_curl_available first; a libcurl 4
// without one of these functions is not one chimed was built against, and cannot go on.
static void *chime_curl_symbol(const char *name)
{
    void *symbol = chime_curl_available() ? dlsym(handle, name) : NULL;
    if (symbol == NULL) {
        fprintf(stderr, "chimed: libcurl.so.4 has no %s: %s\n", name, chime_curl_error() ? chime_curl_error() : "");
        exit(69);
    }
    return symbol;
}

// Looks `name` up once, as a pointer `real` of the function's own type. Tests run clients
// on several threads: the cached pointer is read and written atomically (every thread
// finds the same one).
#define FORWARD(name) \
    static __typeof__(name) *cached; \
    __typeof__(name) *real = __atomic_load_n(&cached, __ATOMIC_RELAXED); \
    if (real == NULL) { \
        real = (__typeof__(name) *)chime_curl_symbol(#name); \
        __atomic_store_n(&cached, real, __ATOMIC_RELAXED); \
    }

// One line per function, in libcurl's names and signatures.
CURL *curl_easy_init(void) { FORWARD(curl_easy_init); return real(); }
void curl_easy_cleanup(CURL *easy) { FORWARD(curl_easy_cleanup); real(easy); }
const char *curl_easy_strerror(CURLcode code) { FORWARD(curl_easy_strerror); return real(code); }
CURLM *curl_multi_init(void) { FORWARD(curl_multi_init); return real(); }
CURLMcode curl_multi_cleanup(CURLM *multi) { FORWARD(curl_multi_cleanup); return real(multi); }
CURLMcode curl_multi_add_handle(CURLM *multi, CURL *easy) { FORWARD(curl_multi_add_handle); return real(multi, easy); }
CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *easy) { FORWARD(curl_multi_remove_handle); return real(multi, easy); }
CURLMcode curl_multi_socket_action(CURLM *multi, curl_socket_t s, int mask, int *running) { FORWARD(curl_multi_socket_action); return real(multi, s, mask, running); }
CURLMsg *curl_multi_info_read(CURLM *multi, int *queued) { FORWARD(curl_multi_info_read); return real(multi, queued); }
const char *curl_multi_strerror(CURLMcode code) { FORWARD(curl_multi_strerror); return real(code); }
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *string) { FORWARD(curl_slist_append); return real(list, string); }
void curl_slist_free_all(struct curl_slist *list) { FORWARD(curl_slist_free_all); real(list); }
CURLU *curl_url(void) { FORWARD(curl_url); return real(); }
void curl_url_cleanup(CURLU *url) { FORWARD(curl_url_cleanup); real(url); }
CURLUcode curl_url_set(CURLU *url, CURLUPart what, const char *part, unsigned int flags) { FORWARD(curl_url_set); return real(url, what, part, flags); }
CURLUcode curl_url_get(CURLU *url, CURLUPart what, char **part, unsigned int flags) { FORWARD(curl_url_get); return real(url, what, part, flags); }
void curl_free(void *pointer) { FORWARD(curl_free); real(pointer); }

CURLcode chime_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) { FORWARD(curl_easy_setopt); return real(easy, option, value); }
CURLcode chime_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value) { FORWARD(curl_easy_setopt); return real(easy, option, value); }
CURLcode chime_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) { FORWARD(curl_easy_setopt); return real(easy, option, value); }
CURLcode chime_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) { FORWARD(curl_easy_setopt); return real(easy, option, value); }
CURLcode chime_curl_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback function) { FORWARD(curl_easy_setopt); return real(easy, option, function); }
CURLcode chime_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) { FORWARD(curl_easy_getinfo); return real(easy, info, value); }
CURLcode chime_curl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value) { FORWARD(curl_easy_getinfo); return real(easy, info, value); }
CURLcode chime_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value) { FORWARD(curl_easy_getinfo); return real(easy, info, value); }
CURLMcode chime_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) { FORWARD(curl_multi_setopt); return real(multi, option, value); }
CURLMcode chime_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) { FORWARD(curl_multi_setopt); return real(multi, option, value); }
CURLMcode chime_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function) { FORWARD(curl_multi_setopt); return real(multi, CURLMOPT_SOCKETFUNCTION, function); }
CURLMcode chime_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function) { FORWARD(curl_multi_setopt); return real(multi, CURLMOPT_TIMERFUNCTION, function); }
