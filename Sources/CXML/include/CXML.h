#ifndef CHIME_CXML_H
#define CHIME_CXML_H
// libxml2 behind a few functions of Chime's own: its headers live under /usr/include/libxml2,
// which no importer of this module then needs on its path.
#endif
