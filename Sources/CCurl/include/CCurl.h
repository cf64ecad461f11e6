#ifndef CHIME_CCURL_H
#define CHIME_CCURL_H
#include <curl/curl.h>
#endif
