#ifndef CHIME_CSYSTEMDSTUBS_H
#define CHIME_CSYSTEMDSTUBS_H
// Nothing to call: systemd-stubs.c only defines what libdbus-1.a asks of libsystemd.
#endif
