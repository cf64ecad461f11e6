#include "CXML.h"
