#include "CGettext.h"

const int cgettext_LC_MESSAGES = LC_MESSAGES;
