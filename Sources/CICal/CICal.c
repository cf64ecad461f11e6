#include "CICal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The functions of libical that chimed calls, defined here with libical's own signatures:
// each opens libical.so.3 on its first use and calls the real one. Swift calls them by
// their libical names, and a chimed never asked for iCalendar never loads libical (see CICal.h).

static void *handle;
static char load_error[256];

int chime_ical_available(void)
{
    if (handle == NULL) {
        handle = dlopen("libical.so.3", RTLD_NOW | RTLD_LOCAL);
        if (handle == NULL) {
            const char *reason = dlerror();
            strncpy(load_error, reason ? reason : "libical.so.3", sizeof load_error - 1);
        }
    }
    return handle != NULL;
}

const char *chime_ical_error(void)
{
    return load_error[0] ? load_error : NULL;
}

// The real function called `name`. chime checks chime_ical_available first; a libical 3
// without one of these functions is not one chime was built against, and cannot go on.
static void *chime_ical_symbol(const char *name)
{
    void *symbol = chime_ical_available() ? dlsym(handle, name) : NULL;
    if (symbol == NULL) {
        fprintf(stderr, "chimed: libical.so.3 has no %s: %s\n", name, chime_ical_error() ? chime_ical_error() : "");
        exit(69);
    }
    return symbol;
}

// Looks `name` up once, as a pointer of the function's own type.
#define FORWARD(name) \
    static __typeof__(name) *real; \
    if (real == NULL) real = (__typeof__(name) *)chime_ical_symbol(#name)

// One line per function, in libical's names and signatures.
void icalcomponent_add_component(icalcomponent *parent, icalcomponent *child) { FORWARD(icalcomponent_add_component); real(parent, child); }
void icalcomponent_add_property(icalcomponent *component, icalproperty *property) { FORWARD(icalcomponent_add_property); real(component, property); }
char *icalcomponent_as_ical_string_r(icalcomponent *component) { FORWARD(icalcomponent_as_ical_string_r); return real(component); }
void icalcomponent_free(icalcomponent *component) { FORWARD(icalcomponent_free); real(component); }
const char *icalcomponent_get_description(icalcomponent *comp) { FORWARD(icalcomponent_get_description); return real(comp); }
struct icaltimetype icalcomponent_get_dtstart(icalcomponent *comp) { FORWARD(icalcomponent_get_dtstart); return real(comp); }
struct icaltimetype icalcomponent_get_dtend(icalcomponent *comp) { FORWARD(icalcomponent_get_dtend); return real(comp); }
struct icaltimetype icalcomponent_get_due(icalcomponent *comp) { FORWARD(icalcomponent_get_due); return real(comp); }
icalcomponent *icalcomponent_get_first_component(icalcomponent *component, icalcomponent_kind kind) { FORWARD(icalcomponent_get_first_component); return real(component, kind); }
icalproperty *icalcomponent_get_first_property(icalcomponent *component, icalproperty_kind kind) { FORWARD(icalcomponent_get_first_property); return real(component, kind); }
icalcomponent *icalcomponent_get_next_component(icalcomponent *component, icalcomponent_kind kind) { FORWARD(icalcomponent_get_next_component); return real(component, kind); }
icalproperty *icalcomponent_get_next_property(icalcomponent *component, icalproperty_kind kind) { FORWARD(icalcomponent_get_next_property); return real(component, kind); }
enum icalproperty_status icalcomponent_get_status(icalcomponent *comp) { FORWARD(icalcomponent_get_status); return real(comp); }
const char *icalcomponent_get_summary(icalcomponent *comp) { FORWARD(icalcomponent_get_summary); return real(comp); }
const char *icalcomponent_get_uid(icalcomponent *comp) { FORWARD(icalcomponent_get_uid); return real(comp); }
icalcomponent_kind icalcomponent_isa(const icalcomponent *component) { FORWARD(icalcomponent_isa); return real(component); }
icalcomponent *icalcomponent_new(icalcomponent_kind kind) { FORWARD(icalcomponent_new); return real(kind); }
icalcomponent *icalcomponent_new_clone(icalcomponent *component) { FORWARD(icalcomponent_new_clone); return real(component); }
void icalcomponent_set_description(icalcomponent *comp, const char *v) { FORWARD(icalcomponent_set_description); real(comp, v); }
void icalcomponent_set_location(icalcomponent *comp, const char *v) { FORWARD(icalcomponent_set_location); real(comp, v); }
const char *icalcomponent_get_location(icalcomponent *comp) { FORWARD(icalcomponent_get_location); return real(comp); }
int icaldurationtype_as_int(struct icaldurationtype duration) { FORWARD(icaldurationtype_as_int); return real(duration); }
time_t icaltime_as_timet(const struct icaltimetype t) { FORWARD(icaltime_as_timet); return real(t); }
void icalcomponent_set_dtstamp(icalcomponent *comp, struct icaltimetype v) { FORWARD(icalcomponent_set_dtstamp); real(comp, v); }
void icalcomponent_set_summary(icalcomponent *comp, const char *v) { FORWARD(icalcomponent_set_summary); real(comp, v); }
void icalcomponent_set_uid(icalcomponent *comp, const char *v) { FORWARD(icalcomponent_set_uid); real(comp, v); }
struct icaldurationtype icaldurationtype_from_int(int t) { FORWARD(icaldurationtype_from_int); return real(t); }
struct icaldurationtype icaldurationtype_null_duration(void) { FORWARD(icaldurationtype_null_duration); return real(); }
icalcomponent *icalparser_parse_string(const char *str) { FORWARD(icalparser_parse_string); return real(str); }
const char *icalproperty_get_parameter_as_string(icalproperty *prop, const char *name) { FORWARD(icalproperty_get_parameter_as_string); return real(prop, name); }
struct icalrecurrencetype icalproperty_get_rrule(const icalproperty *prop) { FORWARD(icalproperty_get_rrule); return real(prop); }
struct icaltriggertype icalproperty_get_trigger(const icalproperty *prop) { FORWARD(icalproperty_get_trigger); return real(prop); }
const char *icalproperty_get_value_as_string(const icalproperty *prop) { FORWARD(icalproperty_get_value_as_string); return real(prop); }
const char *icalproperty_get_x_name(icalproperty *prop) { FORWARD(icalproperty_get_x_name); return real(prop); }
const char *icalproperty_get_xlicerror(const icalproperty *prop) { FORWARD(icalproperty_get_xlicerror); return real(prop); }
icalproperty *icalproperty_new_action(enum icalproperty_action v) { FORWARD(icalproperty_new_action); return real(v); }
icalproperty *icalproperty_new_description(const char * v) { FORWARD(icalproperty_new_description); return real(v); }
icalproperty *icalproperty_new_uid(const char * v) { FORWARD(icalproperty_new_uid); return real(v); }
icalproperty *icalproperty_new_dtstart(struct icaltimetype v) { FORWARD(icalproperty_new_dtstart); return real(v); }
icalproperty *icalproperty_new_exdate(struct icaltimetype v) { FORWARD(icalproperty_new_exdate); return real(v); }
struct icaltimetype icalproperty_get_exdate(const icalproperty *prop) { FORWARD(icalproperty_get_exdate); return real(prop); }
struct icaldatetimeperiodtype icalproperty_get_rdate(const icalproperty *prop) { FORWARD(icalproperty_get_rdate); return real(prop); }
struct icaltimetype icalproperty_get_acknowledged(const icalproperty *prop) { FORWARD(icalproperty_get_acknowledged); return real(prop); }
enum icalproperty_action icalproperty_get_action(const icalproperty *prop) { FORWARD(icalproperty_get_action); return real(prop); }
struct icaltimetype icalproperty_get_recurrenceid(const icalproperty *prop) { FORWARD(icalproperty_get_recurrenceid); return real(prop); }
icalproperty *icalproperty_new_prodid(const char * v) { FORWARD(icalproperty_new_prodid); return real(v); }
icalproperty *icalproperty_new_rrule(struct icalrecurrencetype v) { FORWARD(icalproperty_new_rrule); return real(v); }
icalproperty *icalproperty_new_trigger(struct icaltriggertype v) { FORWARD(icalproperty_new_trigger); return real(v); }
icalproperty *icalproperty_new_version(const char * v) { FORWARD(icalproperty_new_version); return real(v); }
icalproperty *icalproperty_new_x(const char * v) { FORWARD(icalproperty_new_x); return real(v); }
void icalproperty_set_parameter_from_string(icalproperty *prop, const char *name, const char *value) { FORWARD(icalproperty_set_parameter_from_string); real(prop, name, value); }
void icalproperty_set_tzid(icalproperty *prop, const char * v) { FORWARD(icalproperty_set_tzid); real(prop, v); }
void icalproperty_set_x_name(icalproperty *prop, const char *name) { FORWARD(icalproperty_set_x_name); real(prop, name); }
struct icalrecurrencetype icalrecurrencetype_from_string(const char *str) { FORWARD(icalrecurrencetype_from_string); return real(str); }
struct icaltimetype icaltime_add(struct icaltimetype t, struct icaldurationtype d) { FORWARD(icaltime_add); return real(t, d); }
struct icaltimetype icaltime_convert_to_zone(const struct icaltimetype tt, icaltimezone *zone) { FORWARD(icaltime_convert_to_zone); return real(tt, zone); }
struct icaltimetype icaltime_current_time_with_zone(const icaltimezone *zone) { FORWARD(icaltime_current_time_with_zone); return real(zone); }
int icaltime_day_of_week(const struct icaltimetype t) { FORWARD(icaltime_day_of_week); return real(t); }
int icaltime_compare(const struct icaltimetype a, const struct icaltimetype b) { FORWARD(icaltime_compare); return real(a, b); }
struct icaltimetype icaltime_from_string(const char *str) { FORWARD(icaltime_from_string); return real(str); }
struct icaltimetype icaltime_from_timet_with_zone(const time_t tm, const int is_date, const icaltimezone *zone) { FORWARD(icaltime_from_timet_with_zone); return real(tm, is_date, zone); }
int icaltime_is_null_time(const struct icaltimetype t) { FORWARD(icaltime_is_null_time); return real(t); }
int icaltime_is_utc(const struct icaltimetype t) { FORWARD(icaltime_is_utc); return real(t); }
struct icaltimetype icaltime_null_time(void) { FORWARD(icaltime_null_time); return real(); }
icaltimezone *icaltimezone_get_builtin_timezone(const char *location) { FORWARD(icaltimezone_get_builtin_timezone); return real(location); }
icalcomponent *icaltimezone_get_component(icaltimezone *zone) { FORWARD(icaltimezone_get_component); return real(zone); }
icaltimezone *icaltimezone_get_utc_timezone(void) { FORWARD(icaltimezone_get_utc_timezone); return real(); }
