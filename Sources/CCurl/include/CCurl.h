#ifndef CHIME_CCURL_H
#define CHIME_CCURL_H

// libcurl carries chimed's CalDAV requests: TLS, HTTP/2, proxies from the environment,
// content decoding, Digest and connection reuse are its work, not Chime's.
//
// It is opened with dlopen on first use, as CICal opens libical: linked, libcurl and what it
// pulls in (OpenSSL, nghttp2, libssh2, LDAP, …) would cost every chimed's start-up and
// memory, and a user without calendars needs none of it.
// CCurl.c defines the libcurl functions chimed calls with libcurl's own names and
// signatures; the declarations are libcurl's.
#include <curl/curl.h>

/// Opens libcurl.so.4 (and runs curl_global_init) if that was not done yet; whether it is open.
/// Safe to call from any thread.
int chime_curl_available(void);
/// Why libcurl could not be opened (dlerror's text), or NULL.
const char *chime_curl_error(void);

// Swift cannot call C's variadic functions: curl_easy_setopt, curl_multi_setopt and
// curl_easy_getinfo are reached through these, one per type of argument.
CURLcode chime_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode chime_curl_easy_setopt_off_t(CURL *easy, CURLoption option, curl_off_t value);
CURLcode chime_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode chime_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
/// For CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION, which share one type.
CURLcode chime_curl_easy_setopt_write_function(CURL *easy, CURLoption option, curl_write_callback function);
CURLcode chime_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode chime_curl_easy_getinfo_off_t(CURL *easy, CURLINFO info, curl_off_t *value);
/// The string belongs to the easy handle and lives until it is cleaned up.
CURLcode chime_curl_easy_getinfo_string(CURL *easy, CURLINFO info, const char **value);
CURLMcode chime_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode chime_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value);
CURLMcode chime_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback function);
CURLMcode chime_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback function);

// Macros Swift does not import (casts and shifts).
static const unsigned long CHIME_CURLAUTH_BASIC = CURLAUTH_BASIC;
static const unsigned long CHIME_CURLAUTH_DIGEST = CURLAUTH_DIGEST;
static const curl_socket_t CHIME_CURL_SOCKET_TIMEOUT = CURL_SOCKET_TIMEOUT;

#endif
