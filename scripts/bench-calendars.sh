#!/usr/bin/env bash
# Measures chimed following a calendar folder of 10,000 items, each with an alarm (one-time
# events, weekly repeats and tasks with a DUE, a third each): how long `chime calendar add
# --vdir` takes to answer (its first full read) beside the floor of reading every file and
# beside khal indexing the same folder; chimed's RSS after it; how soon one file renamed
# over reaches the schedule; and whether the watched folder wakes an idle chimed. make bench
# runs it after its own rows and prints these rows below them; it also runs alone:
#
#   CHIME_BIN_DIR=.build/release scripts/bench-calendars.sh
#
# CHIME_BIN_DIR            where chime and chimed are (default .build/release)
# BENCH_CALENDAR_ITEMS     items in the folder (default 10000)
# BENCH_CALENDAR_CHANGES   files renamed over, one at a time (default 50)
# BENCH_CALENDAR_IDLE      seconds the idle chimed is watched (default 10)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/release}
items=${BENCH_CALENDAR_ITEMS:-10000}
changes=${BENCH_CALENDAR_CHANGES:-50}
idle_seconds=${BENCH_CALENDAR_IDLE:-10}
chime=$bin_dir/chime
for tool in "$chime" "$bin_dir/chimed"; do
    [[ -x $tool ]] || chime_die "$tool is missing: run 'make release' first"
done

chime_setup
chime_private_store
# The bus starts this chimed, with the private store, as a session's bus would.
CHIME_SERVICE_DIR=$CHIME_TMP/services
mkdir -p "$CHIME_SERVICE_DIR"
sed "/^Exec=/s|@CHIMED@|$bin_dir/chimed|" "$CHIME_ROOT/dbus/io.github.chime.Chime.service.in" \
    >"$CHIME_SERVICE_DIR/io.github.chime.Chime.service"
export XDG_CONFIG_HOME=$CHIME_TMP/config XDG_CACHE_HOME=$CHIME_TMP/cache TZ=Europe/Berlin
chime_start_bus
chime_start_mock

folder=$CHIME_TMP/calendars/bench
echo "Writing a calendar folder of $items items…"
/usr/bin/python3 - "$folder" "$items" <<'PY' || chime_die "writing the folder failed"
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
os.makedirs(folder)
head = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime//bench//EN"]
alarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT15M", "END:VALARM"]
for n in range(count):
    day = f"2030{1 + n % 12:02d}{1 + n % 28:02d}"
    kind = n % 3
    if kind == 0:
        body = ["BEGIN:VEVENT", f"DTSTART;TZID=Europe/Berlin:{day}T100000", f"DTEND;TZID=Europe/Berlin:{day}T110000"]
    elif kind == 1:
        body = ["BEGIN:VEVENT", f"DTSTART;TZID=Europe/Berlin:{day}T090000", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE"]
    else:
        body = ["BEGIN:VTODO", f"DUE:{day}T170000Z", "STATUS:NEEDS-ACTION"]
    end = "END:VEVENT" if kind < 2 else "END:VTODO"
    lines = head + body + [f"UID:{n}@bench.example.org", "DTSTAMP:20261120T093000Z", f"SUMMARY:Item {n}",
                           f"DESCRIPTION:What item {n} is about"] + alarm + [end, "END:VCALENDAR"]
    with open(os.path.join(folder, f"{n}.ics"), "w") as f:
        f.write("\r\n".join(lines) + "\r\n")
PY

# Microseconds since the epoch, without starting a process.
now_us() {
    local t=$EPOCHREALTIME
    echo $((${t%.*} * 1000000 + 10#${t#*.}))
}
ms_since() {
    echo $((($(now_us) - $1) / 1000))
}

# chimed up before the clock starts: the figure is the read, not an activation.
"$chime" list >/dev/null || chime_die "chime list failed"
chimed_pid=$(chime_name_owner_pid io.github.chime.Chime) || chime_die "chimed did not start"

# The floor: every file opened and read once, by cat, with the page cache as warm as it
# is for chimed right after (cat reads first).
echo "Reading every file (cat), then chime calendar add --vdir, then khal's first index…"
start=$(now_us)
find "$folder" -name '*.ics' -exec cat {} + >/dev/null
cat_ms=$(ms_since "$start")
start=$(now_us)
added=$("$chime" calendar add --vdir "$folder" 2>"$CHIME_TMP/add.err") ||
    { cat "$CHIME_TMP/add.err" >&2; chime_die "chime calendar add failed"; }
add_ms=$(ms_since "$start")
[[ $added == "Following bench ($folder): $items reminders to come." ]] ||
    { cat "$CHIME_TMP/add.err" >&2; chime_die "chime calendar add answered '$added'"; }
rss_kib=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$chimed_pid/status")
echo "  cat ${cat_ms} ms; chime calendar add ${add_ms} ms; chimed RSS $((rss_kib / 1024)) MiB"

# khal's first `khal list` with no cache reads and indexes every file into its SQLite cache.
khal_ms=
if command -v khal >/dev/null; then
    printf '[calendars]\n[[bench]]\npath = %s\n[sqlite]\npath = %s\n' "$folder" "$CHIME_TMP/khal.db" >"$CHIME_TMP/khal.conf"
    start=$(now_us)
    if khal -c "$CHIME_TMP/khal.conf" list >/dev/null 2>"$CHIME_TMP/khal.err"; then
        khal_ms=$(ms_since "$start")
        echo "  khal's first list ${khal_ms} ms"
    else
        echo "  khal failed: $(tail -n 1 "$CHIME_TMP/khal.err")"
    fi
fi

# One long-lived Python process renames a new version over one file at a time and polls
# Get for that reminder's title every millisecond until it shows: the figure's resolution
# is that poll (a Get round trip, about 0.2 ms, plus the 1 ms sleep).
echo "Renaming $changes files over, one at a time, until each new title shows in Get…"
"$chime" list --json >"$CHIME_TMP/list.json" || chime_die "chime list failed"
change_line=$(/usr/bin/python3 - "$folder" "$changes" "$CHIME_TMP/list.json" <<'PY'
import json, os, sys, time
from gi.repository import Gio, GLib
folder, changes, listed = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ids = {n["title"]: n["id"] for n in json.load(open(listed))}
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def title(id):
    reply = bus.call_sync("io.github.chime.Chime", "/io/github/chime/Chime", "io.github.chime.Scheduler1", "Get",
                          GLib.Variant("(s)", (id,)), None, Gio.DBusCallFlags.NONE, 5000, None)
    return reply.unpack()[0].get("title")
delays = []
for k in range(changes):
    n = 3 * k  # one-time events: each has one reminder, at a time that stays to come
    path = os.path.join(folder, f"{n}.ics")
    text = open(path, newline="").read().replace(f"SUMMARY:Item {n}\r\n", f"SUMMARY:Item {n} changed\r\n")
    temporary = os.path.join(folder, f".{n}.ics.tmp")
    with open(temporary, "w", newline="") as f:
        f.write(text)
    id = ids[f"Item {n}"]
    start = time.monotonic()
    os.rename(temporary, path)
    while title(id) != f"Item {n} changed":
        if time.monotonic() - start > 30:
            sys.exit(f"Item {n} still has its old title after 30 s")
        time.sleep(0.001)
    delays.append((time.monotonic() - start) * 1000)
    time.sleep(0.2)  # each change its own batch
delays.sort()
print(f"{delays[len(delays) // 2]:.1f} {delays[min(len(delays) - 1, int(0.99 * len(delays)))]:.1f}")
PY
) || chime_die "timing the changes failed"
read -r change_p50 change_p99 <<<"$change_line"
echo "  median ${change_p50} ms, p99 ${change_p99} ms"

chime_wait_until_still "$chimed_pid"
echo "Watching the idle chimed with the folder followed for $idle_seconds s…"
before=$(chime_context_switches "$chimed_pid")
sleep "$idle_seconds"
wakeups=$(($(chime_context_switches "$chimed_pid") - before))
kill -0 "$chimed_pid" 2>/dev/null || chime_die "chimed exited"

# The rows, in bench.sh's columns, after a blank line (make bench prints them below its own).
row() {
    printf '%-40s %11s   %-34s %s\n' "$@" | sed 's/ *$//'
}
echo
row "calendar add --vdir, ${items} items" "$add_ms ms" "cat of every file ${cat_ms} ms" \
    "$(awk -v a="$add_ms" -v c="$cat_ms" 'BEGIN { printf "%.1fx cat", a / (c ? c : 1) }')"
if [[ -n $khal_ms ]]; then
    row "" "" "khal's first index ${khal_ms} ms" "$(awk -v a="$add_ms" -v k="$khal_ms" 'BEGIN { printf "%.2fx khal", a / k }')"
fi
row "chimed RSS after it" "$(awk -v k="$rss_kib" 'BEGIN { printf "%.1f MiB", k / 1024 }')" "" ""
row "one file renamed over to Get, median" "$change_p50 ms" "$changes changes; gathered 100 ms" ""
row "one file renamed over to Get, p99" "$change_p99 ms" "Get polled every 1 ms" ""
row "idle wake-ups in $idle_seconds s, folder watched" "$wakeups" "target 0" ""
