#!/usr/bin/env bash
# Measures chimed syncing a CalDAV collection of 10,000 events with alarms from Radicale
# (started here, on 127.0.0.1, with a password): the first sync (AddCalendar answers once
# it ended) beside vdirsyncer syncing the same collection into a vdir and beside the
# server's own floor, one PROPFIND of every ETag plus one calendar-multiget of every item
# with curl (and the floor of the requests chimed makes: an initial sync-collection and one
# multiget); chimed's RSS after it; a sync with nothing changed (requests made, and time)
# beside one sync-collection request with curl; how soon an item completed on another
# device closes the popup it shows, with a 5 s interval; and what an idle chimed does with
# and without a CalDAV calendar. make bench runs it after its own rows and prints these
# rows below them; it also runs alone:
#
#   CHIME_BIN_DIR=.build/release scripts/bench-caldav.sh
#
# CHIME_BIN_DIR          where chime and chimed are (default .build/release)
# BENCH_CALDAV_ITEMS     items in the collection (default 10000)
# BENCH_CALDAV_CLOSES    items completed elsewhere, one at a time (default 20)
# BENCH_CALDAV_IDLE      seconds each idle chimed is watched (default 20)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/release}
items=${BENCH_CALDAV_ITEMS:-10000}
closes=${BENCH_CALDAV_CLOSES:-20}
idle_seconds=${BENCH_CALDAV_IDLE:-20}
chime=$bin_dir/chime
for tool in "$chime" "$bin_dir/chimed"; do
    [[ -x $tool ]] || chime_die "$tool is missing: run 'make release' first"
done
for tool in curl vdirsyncer; do
    command -v "$tool" >/dev/null || chime_die "$tool is missing: scripts/deps.sh bench installs it"
done

chime_setup
chime_private_store
CHIME_SERVICE_DIR=$CHIME_TMP/services
mkdir -p "$CHIME_SERVICE_DIR"
sed "/^Exec=/s|@CHIMED@|$bin_dir/chimed|" "$CHIME_ROOT/dbus/io.github.chime.Chime.service.in" \
    >"$CHIME_SERVICE_DIR/io.github.chime.Chime.service"
export XDG_CONFIG_HOME=$CHIME_TMP/config XDG_CACHE_HOME=$CHIME_TMP/cache TZ=Europe/Berlin
chime_start_bus
chime_start_mock

now_us() {
    local t=$EPOCHREALTIME
    echo $((${t%.*} * 1000000 + 10#${t#*.}))
}
ms_since() {
    echo $((($(now_us) - $1) / 1000))
}

# Radicale, as the tests start it: htpasswd with a plain password, a port the kernel picks.
storage=$CHIME_TMP/radicale
mkdir -p "$storage"
echo "alice:secret" >"$storage/users"
/usr/bin/python3 -m radicale --config "" --logging-level info --server-hosts 127.0.0.1:0 \
    --auth-type htpasswd --auth-htpasswd-filename "$storage/users" --auth-htpasswd-encryption plain \
    --storage-filesystem-folder "$storage/collections" >"$CHIME_TMP/radicale.log" 2>&1 &
chime_track $!
for ((i = 0; i < 300; i++)); do
    port=$(sed -n "s/.*Listening on '\[127\.0\.0\.1\]:\([0-9]*\)'.*/\1/p" "$CHIME_TMP/radicale.log")
    [[ -n $port ]] && grep -q "Radicale server ready" "$CHIME_TMP/radicale.log" && break
    sleep 0.1
done
[[ -n ${port:-} ]] || { cat "$CHIME_TMP/radicale.log" >&2; chime_die "Radicale did not start"; }
server=http://127.0.0.1:$port
collection=$server/alice/bench/
dav() {
    curl --silent --show-error --fail --user alice:secret "$@"
}
dav --request MKCALENDAR "$collection" >/dev/null || chime_die "MKCALENDAR failed"

# The items go straight into Radicale's storage folder: 10,000 PUTs would take minutes,
# and Radicale reads its folder as it is at each request.
echo "Writing a collection of $items events with alarms…"
/usr/bin/python3 - "$storage/collections/collection-root/alice/bench" "$items" <<'PY' || chime_die "writing the collection failed"
import os, sys
folder, count = sys.argv[1], int(sys.argv[2])
head = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime//bench//EN"]
alarm = ["BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Reminder", "TRIGGER:-PT15M", "END:VALARM"]
for n in range(count):
    day = f"2030{1 + n % 12:02d}{1 + n % 28:02d}"
    if n % 2 == 0:
        body = ["BEGIN:VEVENT", f"DTSTART:{day}T090000Z", f"DTEND:{day}T100000Z"]
    else:
        body = ["BEGIN:VEVENT", f"DTSTART:{day}T090000Z", "RRULE:FREQ=WEEKLY;BYDAY=MO,WE"]
    lines = head + body + [f"UID:{n}@bench.example.org", "DTSTAMP:20261120T093000Z", f"SUMMARY:Item {n}",
                           f"DESCRIPTION:What item {n} is about"] + alarm + ["END:VEVENT", "END:VCALENDAR"]
    with open(os.path.join(folder, f"{n}.ics"), "w", newline="") as f:
        f.write("\r\n".join(lines) + "\r\n")
PY

# Radicale builds its cache of each item at the first request that reads it: one listing
# first, untimed, so that every figure below is of a warm server.
dav --request PROPFIND --header "Depth: 1" "$collection" >/dev/null || chime_die "the first PROPFIND failed"

echo "The floor: one PROPFIND of every ETag, one calendar-multiget of every item (curl)…"
start=$(now_us)
dav --request PROPFIND --header "Depth: 1" --header "Content-Type: application/xml" --data-binary \
    '<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getetag/></prop></propfind>' "$collection" >"$CHIME_TMP/etags.xml"
/usr/bin/python3 - "$CHIME_TMP/etags.xml" "$CHIME_TMP/multiget.xml" <<'PY'
import re, sys
hrefs = [h for h in re.findall(r"<(?:\w+:)?href>([^<]*)</", open(sys.argv[1]).read()) if h.endswith(".ics")]
body = ['<?xml version="1.0"?><C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">',
        "<D:prop><D:getetag/><C:calendar-data/></D:prop>"] + [f"<D:href>{h}</D:href>" for h in hrefs] + ["</C:calendar-multiget>"]
open(sys.argv[2], "w").write("".join(body))
PY
dav --request REPORT --header "Depth: 1" --header "Content-Type: application/xml" --data-binary "@$CHIME_TMP/multiget.xml" \
    "$collection" >/dev/null || chime_die "the floor's multiget failed"
floor_ms=$(ms_since "$start")
echo "  ${floor_ms} ms"

# Radicale answers that PROPFIND in tens of seconds, and the listing chimed asks for, an
# initial sync-collection (RFC 6578) with every ETag, in about one: the floor of chimed's
# own requests is that listing and one multiget of every item.
echo "The floor of a sync: one initial sync-collection, one calendar-multiget of every item (curl)…"
start=$(now_us)
dav --request REPORT --header "Depth: 0" --header "Content-Type: application/xml" --data-binary \
    '<?xml version="1.0"?><sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>' \
    "$collection" >"$CHIME_TMP/listing.xml" || chime_die "the floor's sync-collection failed"
/usr/bin/python3 - "$CHIME_TMP/listing.xml" "$CHIME_TMP/multiget-listed.xml" <<'PY'
import re, sys
hrefs = [h for h in re.findall(r"<(?:\w+:)?href>([^<]*)</", open(sys.argv[1]).read()) if h.endswith(".ics")]
body = ['<?xml version="1.0"?><C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">',
        "<D:prop><D:getetag/><C:calendar-data/></D:prop>"] + [f"<D:href>{h}</D:href>" for h in hrefs] + ["</C:calendar-multiget>"]
open(sys.argv[2], "w").write("".join(body))
PY
dav --request REPORT --header "Depth: 1" --header "Content-Type: application/xml" --data-binary "@$CHIME_TMP/multiget-listed.xml" \
    "$collection" >/dev/null || chime_die "the floor's multiget failed"
sync_floor_ms=$(ms_since "$start")
echo "  ${sync_floor_ms} ms"

echo "vdirsyncer syncing the collection into a vdir…"
cat >"$CHIME_TMP/vdirsyncer.conf" <<EOF
[general]
status_path = "$CHIME_TMP/vdirsyncer-status/"

[pair bench]
a = "bench_local"
b = "bench_remote"
collections = ["from b"]

[storage bench_local]
type = "filesystem"
path = "$CHIME_TMP/vdir/"
fileext = ".ics"

[storage bench_remote]
type = "caldav"
url = "$server/"
username = "alice"
password = "secret"
EOF
vdirsyncer_ms=
if printf 'y\ny\ny\n' | vdirsyncer -c "$CHIME_TMP/vdirsyncer.conf" discover >"$CHIME_TMP/vdirsyncer.log" 2>&1; then
    start=$(now_us)
    if vdirsyncer -c "$CHIME_TMP/vdirsyncer.conf" sync >>"$CHIME_TMP/vdirsyncer.log" 2>&1; then
        vdirsyncer_ms=$(ms_since "$start")
        echo "  ${vdirsyncer_ms} ms ($(find "$CHIME_TMP/vdir" -name '*.ics' | wc -l) files)"
    else
        echo "  vdirsyncer sync failed: $(tail -n 1 "$CHIME_TMP/vdirsyncer.log")"
    fi
else
    echo "  vdirsyncer discover failed: $(tail -n 1 "$CHIME_TMP/vdirsyncer.log")"
fi

"$chime" list >/dev/null || chime_die "chime list failed"
chimed_pid=$(chime_name_owner_pid io.github.chime.Chime) || chime_die "chimed did not start"
chime_wait_until_still "$chimed_pid"
echo "Watching the idle chimed without a CalDAV calendar for $idle_seconds s…"
before=$(chime_context_switches "$chimed_pid")
sleep "$idle_seconds"
idle_without=$(($(chime_context_switches "$chimed_pid") - before))

scheduler() {
    gdbus call --session --dest io.github.chime.Chime --object-path /io/github/chime/Chime \
        --method "io.github.chime.Scheduler1.$1" "${@:2}"
}
requests() {
    grep -c "request for" "$CHIME_TMP/radicale.log" || true
}

echo "chimed's first sync of the collection (AddCalendar answers once it ended)…"
start=$(now_us)
added=$(scheduler AddCalendar "$collection" \
    "{'user': <'alice'>, 'passwordCommand': <'echo secret'>, 'interval': <uint32 5>}" 2>"$CHIME_TMP/add.err") ||
    { cat "$CHIME_TMP/add.err" >&2; chime_die "AddCalendar failed"; }
add_ms=$(ms_since "$start")
[[ $added == *"'state': <'synced'>"* && $added == *"'reminders': <uint32 $items>"* ]] ||
    chime_die "AddCalendar answered $added"
rss_kib=$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$chimed_pid/status")
echo "  ${add_ms} ms; chimed RSS $((rss_kib / 1024)) MiB"

echo "A sync with nothing changed, beside one sync-collection request (curl)…"
token=$(dav --request REPORT --header "Depth: 0" --header "Content-Type: application/xml" --data-binary \
    '<?xml version="1.0"?><sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>' \
    "$collection" | grep -o '<[a-zA-Z0-9]*:*sync-token>[^<]*' | sed 's/.*>//')
best_floor=
best_sync=
for ((k = 0; k < 5; k++)); do
    start=$(now_us)
    dav --request REPORT --header "Depth: 0" --header "Content-Type: application/xml" --data-binary \
        "<?xml version=\"1.0\"?><sync-collection xmlns=\"DAV:\"><sync-token>$token</sync-token><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>" \
        "$collection" >/dev/null || chime_die "the floor's sync-collection failed"
    t=$(ms_since "$start")
    [[ -z $best_floor || $t -lt $best_floor ]] && best_floor=$t
    before=$(requests)
    start=$(now_us)
    synced=$(scheduler SyncCalendar bench) || chime_die "SyncCalendar failed"
    t=$(ms_since "$start")
    made=$(($(requests) - before))
    [[ $synced == *"'new': <uint32 0>"* ]] || chime_die "SyncCalendar answered $synced"
    [[ -z $best_sync || $t -lt $best_sync ]] && best_sync=$t
done
echo "  chimed ${best_sync} ms and $made requests; curl ${best_floor} ms (best of 5 each)"

# Another device (curl, as any client would) completes an item whose popup is on screen:
# the time from its PUT to chimed closing the popup, with the calendar's 5 s interval.
echo "Completing $closes items elsewhere, one at a time, until each popup closes…"
close_line=$(/usr/bin/python3 - "$collection" "$closes" <<'PY'
import base64, json, subprocess, sys, time, urllib.request
from datetime import datetime, timedelta, timezone
collection, count = sys.argv[1], int(sys.argv[2])
auth = "Basic " + base64.b64encode(b"alice:secret").decode()
def put(name, text):
    request = urllib.request.Request(collection + name, data=text.encode(), method="PUT",
                                     headers={"Authorization": auth, "Content-Type": "text/calendar"})
    urllib.request.urlopen(request).read()
def calls(method):
    out = subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.Notifications", "--object-path",
                          "/org/freedesktop/Notifications", "--method", "org.freedesktop.DBus.Mock.GetMethodCalls", method],
                         capture_output=True, text=True, check=True).stdout
    return out.count(", [<")
def task(uid, due, done):
    stamp = due.strftime("%Y%m%dT%H%M%SZ")
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//bench//EN", "BEGIN:VTODO", f"UID:{uid}", "DTSTAMP:20261120T093000Z",
             f"SUMMARY:Task {uid}", f"DUE:{stamp}", "STATUS:COMPLETED" if done else "STATUS:NEEDS-ACTION",
             "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Task", "TRIGGER;RELATED=END:PT0S", "END:VALARM", "END:VTODO", "END:VCALENDAR", ""]
    return "\r\n".join(lines)
delays = []
for k in range(count):
    uid = f"close-{k}"
    due = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(seconds=8)
    shown, closed = calls("Notify"), calls("CloseNotification")
    put(f"{uid}.ics", task(uid, due, False))
    deadline = time.monotonic() + 60
    while calls("Notify") == shown:
        if time.monotonic() > deadline:
            sys.exit(f"{uid} did not ring")
        time.sleep(0.05)
    start = time.monotonic()
    put(f"{uid}.ics", task(uid, due, True))
    while calls("CloseNotification") == closed:
        if time.monotonic() - start > 60:
            sys.exit(f"{uid}'s popup did not close")
        time.sleep(0.02)
    delays.append((time.monotonic() - start) * 1000)
delays.sort()
print(f"{delays[len(delays) // 2]:.0f} {delays[-1]:.0f}")
PY
) || chime_die "timing the closes failed"
read -r close_p50 close_max <<<"$close_line"
echo "  median ${close_p50} ms, max ${close_max} ms"

chime_wait_until_still "$chimed_pid"
echo "Watching the idle chimed with the collection synced every 5 s for $idle_seconds s…"
before=$(chime_context_switches "$chimed_pid")
before_requests=$(requests)
sleep "$idle_seconds"
idle_with=$(($(chime_context_switches "$chimed_pid") - before))
idle_requests=$(($(requests) - before_requests))
kill -0 "$chimed_pid" 2>/dev/null || chime_die "chimed exited"

row() {
    printf '%-40s %11s   %-34s %s\n' "$@" | sed 's/ *$//'
}
echo
row "CalDAV first sync, ${items} events" "$add_ms ms" "floor (curl) ${floor_ms} ms" \
    "$(awk -v a="$add_ms" -v f="$floor_ms" 'BEGIN { printf "%.2fx floor", a / (f ? f : 1) }')"
row "" "" "sync-collection + multiget ${sync_floor_ms} ms" \
    "$(awk -v a="$add_ms" -v f="$sync_floor_ms" 'BEGIN { printf "%.2fx that floor", a / (f ? f : 1) }')"
if [[ -n $vdirsyncer_ms ]]; then
    row "" "" "vdirsyncer ${vdirsyncer_ms} ms" "$(awk -v a="$add_ms" -v v="$vdirsyncer_ms" 'BEGIN { printf "%.2fx vdirsyncer", a / v }')"
fi
row "chimed RSS after it" "$(awk -v k="$rss_kib" 'BEGIN { printf "%.1f MiB", k / 1024 }')" "" ""
row "CalDAV sync, nothing changed" "$best_sync ms" "sync-collection (curl) ${best_floor} ms" \
    "$(awk -v a="$best_sync" -v f="$best_floor" 'BEGIN { printf "%.2fx floor; %d requests", a / (f ? f : 1), '"$made"' }')"
row "completed elsewhere to popup closed, p50" "$close_p50 ms" "$closes items; interval 5 s" "max $close_max ms"
row "idle wake-ups in $idle_seconds s, no CalDAV" "$idle_without" "target 0" ""
row "idle wake-ups in $idle_seconds s, CalDAV" "$idle_with" "$idle_requests requests to Radicale" "interval 5 s"
