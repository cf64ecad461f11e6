#!/usr/bin/env bash
# Measures what Chime promises, beside its peers in one run: `chime notify` costs no
# more than notify-send; a schedule is durable at thousands per second where `at`
# manages hundreds; a notification is sent within milliseconds of its due time; an
# idle chimed never wakes up, however much is scheduled; it starts quickly and
# stays small with 100,000 scheduled; a button press takes effect at once; asking the
# app in front costs a popup about one bus round trip; a region or network crossing
# reaches the notification server within milliseconds; the first call through D-Bus
# activation is answered about as fast as a trivial C service's; a calendar folder of
# 10,000 items is read and followed (scripts/bench-calendars.sh), and a CalDAV collection of
# 10,000 events synced (scripts/bench-caldav.sh); and make check's
# in-process tests, run at every edit, take seconds (timed apart from their build, which
# make bench does first). Beside the peers are floors: C and Swift programs that do only
# the same calls, so that what the language's runtime costs is told apart from what
# Chime adds. Everything runs as installed: `make install` into a temporary prefix,
# whose activation file the bus uses. Prints figures; a missed target is not a failure,
# a tool that errors is.
#
# CHIME_BIN_DIR       where chime, chimed and chime-bench are (default .build/release)
# SWIFT               the swift driver make check's tests run with (default swift)
# SWIFTC              the compiler of the Swift floors (default swiftc)
# SWIFT_LINKFLAGS     how chime and chimed were linked, for the floors (default -static-stdlib)
# BENCH_RUNS          timed runs of each notify command (default 200)
# BENCH_IDLE_SECONDS  how long to watch the idle daemon (default 60)
# BENCH_AT_RUNS       `at` submissions to time (default 500)
# BENCH_ACTIVATIONS   activations of each service to time (default 50)
# BENCH_CROSSINGS     region and network crossings to time (default 100)
# BENCH_SCALE         the schedule sizes of the scale table (default "10000 100000 1000000")
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/faults.sh
source "$(dirname "${BASH_SOURCE[0]}")/faults.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/release}
bench=$bin_dir/chime-bench
runs=${BENCH_RUNS:-200}
idle_seconds=${BENCH_IDLE_SECONDS:-60}
at_runs=${BENCH_AT_RUNS:-500}
activations=${BENCH_ACTIVATIONS:-50}
crossings=${BENCH_CROSSINGS:-100}
read -r -a scale_sizes <<<"${BENCH_SCALE:-10000 100000 1000000}"

# The issue's sizes: the throughput run, the schedule the daemon idles and fires
# with, and the one it must start up with.
throughput_count=20000
# Calls in flight from one client (the private bus allows 50,000, as a desktop
# session bus does).
window=256
idle_count=10000
large_count=100000
late_count=200
press_count=1000
front_count=500
late_spread=10
lone_count=20
churn_count=200
churn_restarts=5
maximal_count=20
dunst_count=86

store_floor=$bin_dir/chime-store-floor
for tool in "$bin_dir/chime" "$bin_dir/chimed" "$bench" "$store_floor"; do
    [[ -x $tool ]] || chime_die "$tool is missing: run 'make release' first"
done
command -v at >/dev/null || chime_die "at is missing: run 'scripts/deps.sh bench'"

chime_setup
# Chime as `make install` lays it out; the private bus's only service folder is the
# installed one, where the activation peers are added.
prefix=$CHIME_TMP/prefix
PREFIX=$prefix BIN_DIR=$bin_dir "$CHIME_ROOT/scripts/install.sh" install >/dev/null ||
    chime_die "installing into $prefix failed"
chime=$prefix/bin/chime
chimed=$prefix/bin/chimed
CHIME_SERVICE_DIR=$prefix/share/dbus-1/services
"${CC:-cc}" -O2 -o "$CHIME_TMP/trivial-service" "$CHIME_ROOT/Benchmarks/activation/trivial-service.c" \
    $(pkg-config --cflags --libs dbus-1) || chime_die "compiling the trivial C service failed"
"${CC:-cc}" -O2 -o "$CHIME_TMP/notify-at" "$CHIME_ROOT/Benchmarks/lateness/notify-at.c" \
    $(pkg-config --cflags --libs dbus-1) || chime_die "compiling the lateness floor program failed"
# The Swift floors: the same work in Swift, with the static runtime chime and chimed are
# built with and nothing else. What they cost over C is the language's, not Chime's.
# They link libdbus-1.so as any program does: CDBus's own module map links the archive.
mkdir -p "$CHIME_TMP/cdbus"
cp "$CHIME_ROOT/Sources/CDBus/shim.h" "$CHIME_TMP/cdbus/"
printf 'module CDBus [system] {\n    header "shim.h"\n    link "dbus-1"\n    export *\n}\n' >"$CHIME_TMP/cdbus/module.modulemap"
read -r -a swift_floor_flags <<<"${SWIFT_LINKFLAGS:--static-stdlib}"
swift_floor_flags+=(-O -I "$CHIME_TMP/cdbus" -ldbus-1)
for flag in $(pkg-config --cflags dbus-1); do swift_floor_flags+=(-Xcc "$flag"); done
"${SWIFTC:-swiftc}" "${swift_floor_flags[@]}" -o "$CHIME_TMP/trivial-service-swift" \
    "$CHIME_ROOT/Benchmarks/floor/trivial-service.swift" || chime_die "compiling the trivial Swift service failed"
"${SWIFTC:-swiftc}" "${swift_floor_flags[@]}" -o "$CHIME_TMP/notify-once" \
    "$CHIME_ROOT/Benchmarks/floor/notify-once.swift" || chime_die "compiling the Swift Notify floor failed"
# The same Notify floor linked fully static (glibc and libdbus-1.a too): nothing for the
# dynamic loader to do. Beside the one above it tells what loading shared libraries costs
# a process start (libdbus-1 brings libsystemd and six more), apart from Swift's runtime.
"${CC:-cc}" -O2 -c -o "$CHIME_TMP/systemd-stubs.o" "$CHIME_ROOT/Sources/CSystemdStubs/systemd-stubs.c" ||
    chime_die "compiling the systemd stubs failed"
# With -static, -ldbus-1 is libdbus-1.a.
"${SWIFTC:-swiftc}" "${swift_floor_flags[@]}" -static-executable -Xlinker "$CHIME_TMP/systemd-stubs.o" \
    -o "$CHIME_TMP/notify-once-static" "$CHIME_ROOT/Benchmarks/floor/notify-once.swift" 2>"$CHIME_TMP/static-floor.log" ||
    { cat "$CHIME_TMP/static-floor.log" >&2; chime_die "compiling the fully static Swift Notify floor failed"; }
trivial_c=io.github.chime.bench.TrivialC
trivial_swift=io.github.chime.bench.TrivialSwift
trivial_python=io.github.chime.bench.TrivialPython
# The Swift floor with chimed's libraries (FoundationEssentials, SQLite), built by SwiftPM beside chimed.
store_swift=io.github.chime.bench.StoreSwift
printf '[D-BUS Service]\nName=%s\nExec=%s %s\n' "$trivial_c" "$CHIME_TMP/trivial-service" "$trivial_c" \
    >"$CHIME_SERVICE_DIR/$trivial_c.service"
printf '[D-BUS Service]\nName=%s\nExec=%s %s\n' "$trivial_swift" "$CHIME_TMP/trivial-service-swift" "$trivial_swift" \
    >"$CHIME_SERVICE_DIR/$trivial_swift.service"
printf '[D-BUS Service]\nName=%s\nExec=%s %s %s\n' "$store_swift" "$store_floor" "$store_swift" \
    "$CHIME_TMP/store-floor.sqlite" >"$CHIME_SERVICE_DIR/$store_swift.service"
printf '[D-BUS Service]\nName=%s\nExec=/usr/bin/python3 %s %s\n' "$trivial_python" \
    "$CHIME_ROOT/Benchmarks/activation/trivial-service.py" "$trivial_python" \
    >"$CHIME_SERVICE_DIR/$trivial_python.service"
chime_private_store
# Buttons whose effect the press benchmark times: a command that records when it
# started, and a snooze.
export XDG_CONFIG_HOME=$CHIME_TMP/config
presses_file=$CHIME_TMP/presses.txt
mkdir -p "$XDG_CONFIG_HOME/chime"
cat >"$XDG_CONFIG_HOME/chime/config" <<EOF
[Category bench]
Actions=go;later;

[Action go]
Label=Go
Exec=/bin/sh;-c;echo "\$CHIME_ID \$(date +%s.%N)" >> $presses_file

[Action later]
Label=Later
Snooze=1h
EOF
# make check's test run, first, with nothing else of the benchmark running yet: the test
# binary is built (make bench builds it), so this is the wait at each edit.
echo "Running make check's in-process tests…"
check_log=$CHIME_TMP/check.log
check_start=$EPOCHREALTIME
SWIFT=${SWIFT:-swift} "$CHIME_ROOT/scripts/check.sh" >"$check_log" 2>&1 ||
    { tail -n 40 "$check_log" >&2; chime_die "make check's tests failed (all of it: $check_log)"; }
check_end=$EPOCHREALTIME
check_summary=$(grep -o 'Test run with [0-9]* tests' "$check_log" | tail -n 1) ||
    chime_die "swift test printed no summary: $check_log"
check_ms=$(((${check_end%.*} - ${check_start%.*}) * 1000 + (10#${check_end#*.} - 10#${check_start#*.}) / 1000))
echo "  ${check_summary#Test run with } in $check_ms ms"

chime_start_system_bus
chime_start_bus
chime_start_mock

results=$CHIME_TMP/results
: >"$results"
# Keeps one figure for the table at the end.
record() {
    printf '%s=%s\n' "$1" "$2" >>"$results"
}
record check "$check_ms ${check_summary//[^0-9]/}"

# Runs chime-bench and shows its one-line result, which it leaves in bench_line.
run_bench() {
    bench_line=$("$bench" "$@") || chime_die "chime-bench $1 failed"
    echo "  $bench_line"
}

# Microseconds since the epoch, without starting a process.
now_us() {
    local t=$EPOCHREALTIME
    echo $((${t%.*} * 1000000 + 10#${t#*.}))
}

# Activation first, with an empty store, as on a new login: each round stops the
# service, then times the first call. The five take turns, one activation each per
# round, so that the machine's load of the moment weighs on each alike.
echo "First calls through activation, $activations each, in turns…"
activated=$("$bench" activate --name "io.github.chime.Chime,$trivial_c,$trivial_swift,$store_swift,$trivial_python" \
    --count "$activations") || chime_die "chime-bench activate failed"
for pair in io.github.chime.Chime:activate_chimed "$trivial_c:activate_c" "$trivial_swift:activate_swift" \
    "$store_swift:activate_store" "$trivial_python:activate_python"; do
    line=$(grep -F "activate ${pair%:*}: " <<<"$activated") || chime_die "chime-bench printed no line for ${pair%:*}"
    echo "  $line"
    [[ $line =~ median\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$line'"
    record "${pair#*:}" "${BASH_REMATCH[1]}"
done

# The first call activates chimed; time only calls to a running daemon.
"$chime" notify "Warm-up" "Starts chimed" >/dev/null ||
    chime_die "chime notify failed"
notify-send "Warm-up" "Connects to the mock" || chime_die "notify-send failed"
chimed_pid=$(chime_name_owner_pid io.github.chime.Chime 2>/dev/null) ||
    chime_die "chimed does not own io.github.chime.Chime after chime notify"

json=$CHIME_TMP/notify.json
printf -v chime_cmd '%q notify Tea Ready' "$chime"
printf -v floor_cmd '%q Tea Ready' "$CHIME_TMP/notify-once"
printf -v static_floor_cmd '%q Tea Ready' "$CHIME_TMP/notify-once-static"
hyperfine -N --style basic --runs "$runs" --warmup 10 --export-json "$json" \
    -n chime "$chime_cmd" -n notify-send "notify-send Tea Ready" -n swift-floor "$floor_cmd" \
    -n static-floor "$static_floor_cmd"

status_field() {
    local key value _
    while read -r key value _; do
        [[ $key == "$2:" ]] && { echo "$value"; return; }
    done <"/proc/$1/status"
}

alive() {
    kill -0 "$chimed_pid" 2>/dev/null || chime_die "chimed exited $1"
}

# Leaves the rate a `chime-bench schedule` line reports in bench_rate.
schedule_rate() {
    [[ $bench_line =~ :\ ([0-9]+)/s$ ]] || chime_die "chime-bench printed '$bench_line'"
    bench_rate=${BASH_REMATCH[1]}
}

scheduler_call() {
    dbus-send --session --print-reply=literal --dest=io.github.chime.Chime \
        /io/github/chime/Chime "io.github.chime.Scheduler1.$1"
}

alive "during the timing runs"
echo
echo "Scheduling $throughput_count, $window in flight…"
run_bench schedule --count "$throughput_count" --window "$window" --when "in 1d" --prefix throughput
schedule_rate
record chime_rate "$bench_rate"
record window "$window"

# The peer: `at` takes one job per process, at minute resolution. atd need not
# run: the spool file is the durable part.
echo "Submitting $at_runs jobs to at…"
at_log=$CHIME_TMP/at.log
start=$(now_us)
for ((i = 0; i < at_runs; i++)); do
    echo true | at now + 1 hour 2>>"$at_log" ||
        { cat "$at_log" >&2; chime_die "at failed"; }
done
end=$(now_us)
mapfile -t at_jobs < <(sed -n 's/^job \([0-9][0-9]*\) at .*/\1/p' "$at_log")
((${#at_jobs[@]} == at_runs)) ||
    { cat "$at_log" >&2; chime_die "at reported ${#at_jobs[@]} jobs for $at_runs submissions"; }
atrm "${at_jobs[@]}" || chime_die "atrm failed"
at_rate=$((at_runs * 1000000 / (end - start)))
echo "  submitted $at_runs in $(((end - start) / 1000)) ms: $at_rate/s"
record at_rate "$at_rate"

start=$(now_us)
cancelled=$(scheduler_call CancelAll) || chime_die "CancelAll failed"
end=$(now_us)
[[ $cancelled =~ uint32\ ([0-9]+) && ${BASH_REMATCH[1]} == "$throughput_count" ]] ||
    chime_die "CancelAll answered '$cancelled' for $throughput_count scheduled"
record cancel_ms "$(((end - start) / 1000))"

# One calendar of 5,000 weekly events, each with an alarm, in a zone (what a few years of a
# work calendar exported is), imported into an empty schedule, then again: the second time
# every event is found by its UID and updated in place.
echo "Importing a calendar of 5,000 events, then again…"
calendar_file=$CHIME_TMP/import.ics
python3 - "$calendar_file" <<'PY' || chime_die "writing the calendar failed"
import sys
lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Chime//bench//EN"]
for n in range(5000):
    lines += ["BEGIN:VEVENT", f"UID:{n}@bench.example.org", "DTSTAMP:20261120T093000Z", f"SUMMARY:Meeting {n}",
              f"DESCRIPTION:Agenda of meeting {n}", "DTSTART;TZID=Europe/Berlin:20300401T100000",
              "RRULE:FREQ=WEEKLY;BYDAY=MO,WE", "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:Meeting",
              "TRIGGER:-PT15M", "END:VALARM", "END:VEVENT"]
lines.append("END:VCALENDAR")
open(sys.argv[1], "w").write("\r\n".join(lines) + "\r\n")
PY
for round in import reimport; do
    start=$(now_us)
    "$chime" import "$calendar_file" >/dev/null 2>"$CHIME_TMP/import.err" ||
        { cat "$CHIME_TMP/import.err" >&2; chime_die "chime import failed"; }
    end=$(now_us)
    echo "  $round: $(((end - start) / 1000)) ms"
    record "${round}_ms" "$(((end - start) / 1000))"
done
grep -q "^chime: 5000 updated in place, 0 new.$" "$CHIME_TMP/import.err" ||
    { cat "$CHIME_TMP/import.err" >&2; chime_die "the second import did not update the 5,000 in place"; }
cancelled=$(scheduler_call CancelAll) || chime_die "CancelAll failed"
[[ $cancelled =~ uint32\ ([0-9]+) && ${BASH_REMATCH[1]} == 5000 ]] || chime_die "CancelAll answered '$cancelled' after importing 5,000"

echo "Scheduling $idle_count for tomorrow…"
run_bench schedule --count "$idle_count" --window "$window" --when "in 1d" --prefix idle

echo "Firing $late_count over $late_spread s with $idle_count scheduled…"
run_bench lateness --count "$late_count" --spread "$late_spread" --window "$window"
[[ $bench_line =~ p50\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms,\ max\ ([0-9.]+)\ ms ]] ||
    chime_die "chime-bench printed '$bench_line'"
record late_p50 "${BASH_REMATCH[1]}"
record late_p99 "${BASH_REMATCH[2]}"
record late_max "${BASH_REMATCH[3]}"
# One at a time: what a reminder waits when nothing else is due with it.
echo "Firing $lone_count alone, one a second, with $idle_count scheduled…"
run_bench lateness --count "$lone_count" --spread "$lone_count" --window "$window"
[[ $bench_line =~ p50\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record lone_p50 "${BASH_REMATCH[1]}"
record lone_p99 "${BASH_REMATCH[2]}"
alive "while firing"
# The floor: a C program that only sends the same Notify calls at the same due times,
# watched the same way; what chimed adds is the difference.
echo "The same, sent by a C program that does nothing else…"
run_bench lateness --count "$late_count" --spread "$late_spread" --window "$window" --peer "$CHIME_TMP/notify-at"
[[ $bench_line =~ p50\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record floor_p50 "${BASH_REMATCH[1]}"
record floor_p99 "${BASH_REMATCH[2]}"
run_bench lateness --count "$lone_count" --spread "$lone_count" --window "$window" --peer "$CHIME_TMP/notify-at"
[[ $bench_line =~ p50\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record floor_lone_p50 "${BASH_REMATCH[1]}"
record floor_lone_p99 "${BASH_REMATCH[2]}"

# Places: chime-bench plays GeoClue, then NetworkManager, on the private system
# bus and times each crossing from the change it sends to the Notify. It cancels
# what it scheduled, so the idle chimed watched next has no place left, and its
# system-bus connections (the session lock's, the places') stay open.
echo "Crossing a region $crossings times, then joining and leaving a network $crossings times…"
run_bench place --via geoclue --crossings "$crossings"
[[ $bench_line =~ median\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record region_p50 "${BASH_REMATCH[1]}"
record region_p99 "${BASH_REMATCH[2]}"
run_bench place --via networkmanager --crossings "$crossings"
[[ $bench_line =~ median\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record network_p50 "${BASH_REMATCH[1]}"
record network_p99 "${BASH_REMATCH[2]}"
alive "after the crossings"
system_connections=$(chime_system_bus_connections "$chimed_pid") || chime_die "cannot list the system bus's connections"
((system_connections > 0)) || chime_die "chimed holds no system-bus connection: the idle figure would be without one"
record system_connections "$system_connections"

# The server's replies to the last Notify calls arrive just after the last was
# sent: the count is of idleness only.
chime_wait_until_still "$chimed_pid"
echo "Watching the idle chimed (pid $chimed_pid, $idle_count scheduled) for $idle_seconds s…"
before=$(chime_context_switches "$chimed_pid")
sleep "$idle_seconds"
alive "while idle"
after=$(chime_context_switches "$chimed_pid")
record wakeups "$((after - before))"
record idle_rss "$(status_field "$chimed_pid" VmRSS)"
record threads "$(status_field "$chimed_pid" Threads)"
record mock_rss "$(status_field "$CHIME_MOCK_PID" VmRSS)"

# Delivery through server churn: due reminders while the server is killed and
# restarted; the last one started stays for what follows.
echo "Delivering $churn_count due while the server restarts $churn_restarts times…"
FAULTS_CHIME=$chime FAULTS_BENCH=$bench
faults_churn_round "$churn_count" "$churn_restarts"
record churn_due "$faults_due"
record churn_delivered "$faults_delivered"
record churn_copies "$faults_copies"
alive "through server churn"

# Button presses: chime-bench becomes the notification server, so it knows the
# instant each press is sent; the mock steps aside first.
echo "Pressing buttons: $press_count commands, then $press_count snoozes…"
stop_server() {
    kill -TERM "$1"
    for ((i = 0; i < 500; i++)); do
        chime_name_has_owner org.freedesktop.Notifications || break
        sleep 0.02
    done
    ((i < 500)) || chime_die "the notification server did not leave the bus"
}
stop_server "$CHIME_MOCK_PID"
run_bench presses --count "$press_count" --action go --output "$presses_file"
[[ $bench_line =~ median\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record press_command_p50 "${BASH_REMATCH[1]}"
record press_command_p99 "${BASH_REMATCH[2]}"
run_bench presses --count "$press_count" --action later
[[ $bench_line =~ median\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
record press_snooze_p50 "${BASH_REMATCH[1]}"
record press_snooze_p99 "${BASH_REMATCH[2]}"
alive "after the presses"

# The app in front: chime-bench is the server again, and the app chimed asks.
echo "Asking an app in front, $front_count rounds…"
run_bench front --count "$front_count"
[[ $bench_line =~ no\ app\ median\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms.*not\ running\ median\ ([0-9.]+)\ ms.*in\ front\ median\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] ||
    chime_die "chime-bench printed '$bench_line'"
record front_none_p50 "${BASH_REMATCH[1]}"
record front_none_p99 "${BASH_REMATCH[2]}"
record front_absent_p50 "${BASH_REMATCH[3]}"
record front_p50 "${BASH_REMATCH[4]}"
record front_p99 "${BASH_REMATCH[5]}"
alive "after asking the app in front"

# The snoozed copies made by the press benchmark count towards the total.
fill=$((large_count - idle_count - press_count))
echo "Scheduling $fill more, to $large_count…"
run_bench schedule --count "$fill" --window "$window" --when "in 1d" --prefix large
schedule_rate
record fill_rate "$bench_rate"
alive "while filling"

# Start-up is timed on a chimed started by hand, as a session's autostart
# would: the bus-activated one is stopped first, and nothing calls the name
# meanwhile, so the bus does not activate another. Leaves the time to ready in
# restart_ms, chimed's own share (its start-up line) in restart_own_ms, and its
# memory in restart_rss and restart_hwm (KiB).
ready() {
    gdbus wait --session --timeout 60 io.github.chime.Chime &&
        dbus-send --session --print-reply --dest=io.github.chime.Chime \
            /io/github/chime/Chime org.freedesktop.DBus.Peer.Ping >/dev/null
}
restart_chimed() {
    local expected=$1 log=$CHIME_TMP/chimed-started.log start end owner
    kill -TERM "$chimed_pid"
    for ((i = 0; i < 1500; i++)); do
        # read, not $(<…): a missing file there ends the script under set -e.
        read -r stat 2>/dev/null <"/proc/$chimed_pid/stat" || break
        [[ ${stat##*) } == Z* ]] && break
        sleep 0.02
    done
    ((i < 1500)) || chime_die "chimed did not exit within 30 s of SIGTERM"
    for ((i = 0; i < 500; i++)); do
        chime_name_has_owner io.github.chime.Chime || break
        sleep 0.02
    done
    ((i < 500)) || chime_die "io.github.chime.Chime still has an owner after chimed exited"
    start=$(now_us)
    # Debug: a line per batch fired says where its time went on chimed's side.
    CHIME_LOG_LEVEL=debug "$chimed" 2>"$log" &
    chimed_pid=$!
    chime_track "$chimed_pid"
    ready || { cat "$log" >&2; chime_die "chimed did not become ready"; }
    end=$(now_us)
    owner=$(chime_name_owner_pid io.github.chime.Chime) || chime_die "chimed lost its name"
    [[ $owner == "$chimed_pid" ]] || chime_die "io.github.chime.Chime is owned by pid $owner, not the chimed started"
    restart_ms=$(((end - start) / 1000))
    restart_rss=$(status_field "$chimed_pid" VmRSS)
    restart_hwm=$(status_field "$chimed_pid" VmHWM)
    grep -q " $expected scheduled" "$log" ||
        { cat "$log" >&2; chime_die "chimed did not load $expected"; }
    [[ $(<"$log") =~ ready\ ([0-9.]+)\ ms\ after\ main ]] || { cat "$log" >&2; chime_die "chimed logged no start-up line"; }
    restart_own_ms=${BASH_REMATCH[1]}
}

# Three restarts, their median: one start reads the whole store, and a single one moved
# by half with what else the machine's cache held at that moment.
echo "Restarting chimed with $large_count scheduled, three times…"
starts=() owns=()
for _ in 1 2 3; do
    restart_chimed "$large_count"
    starts+=("$restart_ms") owns+=("$restart_own_ms")
done
middle() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
echo "  ${starts[*]} ms; chimed from main ${owns[*]} ms"
record start_ms "$(middle "${starts[@]}")"
record start_own_ms "$(middle "${owns[@]}")"
record large_rss "$restart_rss"
record large_hwm "$restart_hwm"
# The same two commands against a daemon already up: the part of the figure
# that is the tools' own start-up.
start=$(now_us)
ready || chime_die "chimed stopped answering"
end=$(now_us)
record ready_tools_ms "$(((end - start) / 1000))"
alive "after start-up"

echo "Pinging chimed during requests at every limit, $maximal_count rounds…"
run_bench ping --rounds "$maximal_count"
[[ $bench_line =~ idle\ median\ ([0-9.]+)\ ms.*median\ ([0-9.]+)\ ms,\ max\ ([0-9.]+)\ ms ]] ||
    chime_die "chime-bench printed '$bench_line'"
record ping_idle "${BASH_REMATCH[1]}"
record ping_busy_p50 "${BASH_REMATCH[2]}"
record ping_busy_max "${BASH_REMATCH[3]}"
alive "behind maximal requests"

# Scale: the same measures at each size, from an empty schedule up, side by side.
# Each size is filled through D-Bus, then chimed restarts on it, and 20 reminders
# due together fire ten times on top of it. The largest is then cancelled at once.
echo "Scale: cancelling everything, then ${scale_sizes[*]} scheduled…"
scheduler_call CancelAll >/dev/null || chime_die "CancelAll failed"
# chime-bench played the server last; the mock is back for the lateness rounds.
chime_start_mock
scheduled=0
for size in "${scale_sizes[@]}"; do
    ((size > scheduled)) || chime_die "BENCH_SCALE must grow: $size after $scheduled"
    echo "  filling to $size…"
    run_bench schedule --count "$((size - scheduled))" --window "$window" --when "in 1d" --prefix "scale$size-"
    scheduled=$size
    restart_chimed "$size"
    echo "  restarted in $restart_ms ms, RSS $((restart_rss / 1024)) MiB; chimed: $(grep -o 'ready .*' "$CHIME_TMP/chimed-started.log")"
    run_bench lateness --count "$late_count" --spread "$late_spread" --window "$window"
    [[ $bench_line =~ p50\ ([0-9.]+)\ ms,\ p99\ ([0-9.]+)\ ms ]] || chime_die "chime-bench printed '$bench_line'"
    late50=${BASH_REMATCH[1]} late99=${BASH_REMATCH[2]}
    alive "at $size scheduled"
    # chimed's own share of each batch: woken after the due time, and the last of
    # the batch delivered after waking.
    stages=$(sed -n 's/.*Fired [0-9]*: woke \([0-9.]*\) ms after due; first delivered [0-9.]* ms after waking, last \([0-9.]*\) ms;.*/\1:\2/p' \
        "$CHIME_TMP/chimed-started.log" | paste -sd, -)
    [[ -n $stages ]] || chime_die "chimed logged no firing at $size scheduled"
    record "scale_$size" "$restart_ms $restart_own_ms $restart_rss $restart_hwm $late50 $late99 $(status_field "$chimed_pid" VmRSS) $stages"
done
start=$(now_us)
cancelled=$(dbus-send --session --reply-timeout=120000 --print-reply=literal --dest=io.github.chime.Chime \
    /io/github/chime/Chime io.github.chime.Scheduler1.CancelAll) || chime_die "CancelAll failed"
end=$(now_us)
[[ $cancelled =~ uint32\ ([0-9]+) && ${BASH_REMATCH[1]} == "$scheduled" ]] ||
    chime_die "CancelAll answered '$cancelled' for $scheduled scheduled"
record scale_cancel "$scheduled $(((end - start) / 1000))"
alive "after cancelling $scheduled"

# Against dunst, the server of many desktops, under Xvfb: chime notify and notify-send
# once more, then a fresh chimed and dunst idle after dunst has shown the same
# notifications, each one's resident memory; and the binaries' installed size.
echo "Against dunst: chime notify and notify-send, then $dunst_count shown…"
stop_server "$CHIME_MOCK_PID"
chime_start_x
chime_start_dunst
restart_chimed 0
"$chime" notify "Warm-up" "Against dunst" >/dev/null || chime_die "chime notify failed against dunst"
notify-send "Warm-up" "Against dunst" || chime_die "notify-send failed against dunst"
dunst_json=$CHIME_TMP/notify-dunst.json
hyperfine -N --style basic --runs "$runs" --warmup 10 --export-json "$dunst_json" \
    -n chime "$chime_cmd" -n notify-send "notify-send Tea Ready" -n swift-floor "$floor_cmd" \
    -n static-floor "$static_floor_cmd"
dunst_seen() {
    echo $(($(dunstctl count displayed) + $(dunstctl count waiting) + $(dunstctl count history)))
}
seen_before=$(dunst_seen) || chime_die "dunstctl failed"
for ((n = 0; n < dunst_count; n++)); do
    "$chime" notify "Shown $n" "Counted" >/dev/null || chime_die "chime notify failed against dunst"
done
for ((i = 0; i < 500; i++)); do
    (($(dunst_seen) >= seen_before + dunst_count)) && break
    sleep 0.02
done
((i < 500)) || chime_die "dunst did not get the $dunst_count notifications"
sleep 2
alive "against dunst"
# RssAnon is each one's own memory; the rest is mostly its binary and libraries, paged in.
record dunst_rss "$(status_field "$chimed_pid" VmRSS) $(status_field "$CHIME_DUNST_PID" VmRSS) $dunst_count"
record dunst_anon "$(status_field "$chimed_pid" RssAnon) $(status_field "$CHIME_DUNST_PID" RssAnon)"
strip -o "$CHIME_TMP/chime.stripped" "$chime" && strip -o "$CHIME_TMP/chimed.stripped" "$chimed" ||
    chime_die "strip failed"
record sizes "$(stat -c %s "$CHIME_TMP/chime.stripped") $(stat -c %s "$CHIME_TMP/chimed.stripped") $(stat -c %s "$(command -v dunst)")"
# The floors: the trivial services, started by a call as chimed was, and the Swift
# ones' binaries, stripped.
for name in "$trivial_c" "$trivial_swift" "$store_swift"; do
    dbus-send --session --print-reply --dest="$name" / org.freedesktop.DBus.Peer.Ping >/dev/null ||
        chime_die "the bus did not start $name"
done
floor_c_pid=$(chime_name_owner_pid "$trivial_c") && floor_swift_pid=$(chime_name_owner_pid "$trivial_swift") &&
    floor_store_pid=$(chime_name_owner_pid "$store_swift") || chime_die "the trivial services do not own their names"
record floor_rss "$(status_field "$floor_c_pid" VmRSS) $(status_field "$floor_swift_pid" VmRSS) $(status_field "$floor_store_pid" VmRSS)"
strip -o "$CHIME_TMP/trivial-service-swift.stripped" "$CHIME_TMP/trivial-service-swift" &&
    strip -o "$CHIME_TMP/store-floor.stripped" "$store_floor" || chime_die "strip failed"
record floor_size "$(stat -c %s "$CHIME_TMP/trivial-service-swift.stripped") $(stat -c %s "$CHIME_TMP/store-floor.stripped")"

# A calendar folder of 10,000 items followed, on a bus and a chimed of its own; its rows are
# printed below this run's.
echo "A calendar folder of 10,000 items…"
CHIME_BIN_DIR=$bin_dir "$CHIME_ROOT/scripts/bench-calendars.sh" | tee "$CHIME_TMP/calendars.out" ||
    chime_die "scripts/bench-calendars.sh failed"
# A CalDAV collection of 10,000 events from Radicale, the same way.
echo "A CalDAV collection of 10,000 events…"
CHIME_BIN_DIR=$bin_dir "$CHIME_ROOT/scripts/bench-caldav.sh" | tee "$CHIME_TMP/caldav.out" ||
    chime_die "scripts/bench-caldav.sh failed"

echo
/usr/bin/python3 - "$json" "$results" "$idle_seconds" "$dunst_json" <<'PY'
import json, sys
path, results_path, idle, dunst_path = sys.argv[1:]
results = {r["command"]: r for r in json.load(open(path))["results"]}
against_dunst = {r["command"]: r["median"] * 1000 for r in json.load(open(dunst_path))["results"]}
r = dict(line.rstrip("\n").split("=", 1) for line in open(results_path) if "=" in line)
chime = results["chime"]["median"] * 1000
send = results["notify-send"]["median"] * 1000
chime_rate, at_rate = int(r["chime_rate"]), int(r["at_rate"])
p50, p99, worst = float(r["late_p50"]), float(r["late_p99"]), float(r["late_max"])
mib = lambda kib: int(kib) / 1024
idle_rss, large_rss = mib(r["idle_rss"]), mib(r["large_rss"])
start_ms, tools_ms = int(r["start_ms"]), int(r["ready_tools_ms"])
act, act_c, act_py = float(r["activate_chimed"]), float(r["activate_c"]), float(r["activate_python"])
act_swift, act_store = float(r["activate_swift"]), float(r["activate_store"])
floor = results["swift-floor"]["median"] * 1000
static_floor = results["static-floor"]["median"] * 1000
floor_rss_c, floor_rss_swift, floor_rss_store = map(int, r["floor_rss"].split())
floor_size, floor_store_size = map(int, r["floor_size"].split())
rows = [
    ("figure", "value", "target / peer", "ratio"),
    ("installed chime notify, median", f"{chime:.2f} ms", f"notify-send {send:.2f} ms", f"{chime / send:.2f} (target <= 0.5)"),
    ("", "", f"Swift floor (one Notify) {floor:.2f} ms", f"{floor / send:.2f} floor / notify-send"),
    ("", "", f"the same, fully static {static_floor:.2f} ms", f"{static_floor / send:.2f} static floor / notify-send"),
    ("installed chime notify, dunst, median", f"{against_dunst['chime']:.2f} ms",
     f"notify-send {against_dunst['notify-send']:.2f} ms", f"{against_dunst['chime'] / against_dunst['notify-send']:.2f} (target <= 0.5)"),
    ("", "", f"Swift floor (one Notify) {against_dunst['swift-floor']:.2f} ms",
     f"{against_dunst['swift-floor'] / against_dunst['notify-send']:.2f} floor / notify-send"),
    ("", "", f"the same, fully static {against_dunst['static-floor']:.2f} ms",
     f"{against_dunst['static-floor'] / against_dunst['notify-send']:.2f} static floor / notify-send"),
    ("first call through activation, median", f"{act:.2f} ms", "target <= 15 ms", f"{act / 15:.2f}"),
    ("", "", f"trivial C service {act_c:.2f} ms", f"{act / act_c:.1f}x C (target <= 2)"),
    ("", "", f"trivial Swift service {act_swift:.2f} ms", f"{act / act_swift:.1f}x Swift; Swift {act_swift / act_c:.1f}x C"),
    ("", "", f"Swift service, FoundationEssentials + SQLite {act_store:.2f} ms", f"{act / act_store:.1f}x store floor; it {act_store / act_c:.1f}x C"),
    ("", "", f"trivial Python service {act_py:.2f} ms", f"{act / act_py:.2f}x Python"),
    (f"schedules/s, 1 client, {r['window']} in flight", f"{chime_rate}/s", f"at {at_rate}/s", f"{chime_rate / at_rate:.1f}x at"),
    ("", "", "target >= 5000/s", f"{chime_rate / 5000:.2f}"),
    ("fire lateness p50, 10k, 20 due together", f"{p50:.2f} ms", f"C program, same calls {float(r['floor_p50']):.2f} ms",
     f"{p50 / float(r['floor_p50']):.1f}x C"),
    ("fire lateness p99, 10k, 20 due together", f"{p99:.2f} ms", "target <= 1 ms", f"{p99 / 1:.2f}"),
    ("", "", f"C program, same calls {float(r['floor_p99']):.2f} ms", f"{p99 / float(r['floor_p99']):.1f}x C"),
    ("fire lateness max, 10k, 20 due together", f"{worst:.2f} ms", "", ""),
    ("fire lateness p50, a lone reminder", f"{float(r['lone_p50']):.2f} ms", f"C program, same call {float(r['floor_lone_p50']):.2f} ms",
     f"{float(r['lone_p50']) / float(r['floor_lone_p50']):.1f}x C"),
    ("fire lateness p99, a lone reminder", f"{float(r['lone_p99']):.2f} ms", "target <= 0.5 ms",
     f"{float(r['lone_p99']) / 0.5:.2f}"),
    ("", "", f"C program, same call {float(r['floor_lone_p99']):.2f} ms",
     f"{float(r['lone_p99']) / float(r['floor_lone_p99']):.1f}x C"),
    ("region crossing to Notify, median", f"{float(r['region_p50']):.2f} ms", f"fire lateness p50 {p50:.2f} ms",
     f"{float(r['region_p50']) / p50:.1f}x lateness"),
    ("region crossing to Notify, p99", f"{float(r['region_p99']):.2f} ms", f"fire lateness p99 {p99:.2f} ms",
     f"{float(r['region_p99']) / p99:.1f}x lateness"),
    ("network change to Notify, median", f"{float(r['network_p50']):.2f} ms", f"fire lateness p50 {p50:.2f} ms",
     f"{float(r['network_p50']) / p50:.1f}x lateness"),
    ("network change to Notify, p99", f"{float(r['network_p99']):.2f} ms", f"fire lateness p99 {p99:.2f} ms",
     f"{float(r['network_p99']) / p99:.1f}x lateness"),
    (f"idle wake-ups in {idle} s, 10k", r["wakeups"], "target 0", ""),
    ("", "", f"system bus up: {r['system_connections']} connections", ""),
    ("RSS, 10k scheduled", f"{idle_rss:.1f} MiB", f"threads: {r['threads']}", ""),
    ("start-up to ready, 100k, median of 3", f"{start_ms} ms", "target <= 1000 ms", f"{start_ms / 1000:.2f}"),
    ("", "", f"of it gdbus + dbus-send {tools_ms} ms", ""),
    ("", "", f"of it chimed from main {float(r['start_own_ms']):.1f} ms", ""),
    ("RSS after start-up, 100k", f"{large_rss:.1f} MiB", "target <= 64 MiB", f"{large_rss / 64:.2f}"),
    ("", "", f"peak {mib(r['large_hwm']):.1f} MiB", ""),
    ("schedules/s, filling 10k to 100k", f"{r['fill_rate']}/s", "target >= 5000/s", f"{int(r['fill_rate']) / 5000:.2f}"),
    ("CancelAll of 20k", f"{r['cancel_ms']} ms", "", ""),
    ("press to command started, median", f"{float(r['press_command_p50']):.2f} ms", "1000 presses", ""),
    ("press to command started, p99", f"{float(r['press_command_p99']):.2f} ms", "includes /bin/sh start-up", ""),
    ("press to snooze committed, median", f"{float(r['press_snooze_p50']):.2f} ms", "1000 presses", ""),
    ("press to snooze committed, p99", f"{float(r['press_snooze_p99']):.2f} ms", "upper bound: Ping after the signal", ""),
    ("shown with an app in front, median", f"{float(r['front_p50']):.2f} ms",
     f"no app {float(r['front_none_p50']):.2f} ms", f"+{float(r['front_p50']) - float(r['front_none_p50']):.2f} ms WillPresent"),
    ("shown with an app in front, p99", f"{float(r['front_p99']):.2f} ms",
     f"no app {float(r['front_none_p99']):.2f} ms", "timeout 250 ms"),
    ("shown, its app not running, median", f"{float(r['front_absent_p50']):.2f} ms", "NameHasNoOwner from the bus", ""),
    ("due reminders reaching a server, churn", f"{r['churn_delivered']} of {r['churn_due']}", "5 server restarts (SIGKILL)",
     f"{int(r['churn_delivered']) / int(r['churn_due']):.2f} (target 1)"),
    ("copies shown twice, churn", r["churn_copies"], "at most 32 per restart", ""),
    ("Ping during a maximal request, max", f"{float(r['ping_busy_max']):.2f} ms", f"idle Ping {float(r['ping_idle']):.2f} ms",
     f"{float(r['ping_busy_max']) / 100:.2f} (target <= 100 ms)"),
    ("Ping during a maximal request, median", f"{float(r['ping_busy_p50']):.2f} ms", "Schedule at every limit, 20 rounds", ""),
    ("mock server RSS", f"{mib(r['mock_rss']):.1f} MiB", "for scale (Python)", ""),
    (f"chimed RSS idle after {r['dunst_rss'].split()[2]} shown", f"{mib(r['dunst_rss'].split()[0]):.1f} MiB", f"dunst that showed them {mib(r['dunst_rss'].split()[1]):.1f} MiB",
     f"{int(r['dunst_rss'].split()[0]) / int(r['dunst_rss'].split()[1]):.2f} (target <= 1)"),
    ("", "", f"of it anonymous: chimed {mib(r['dunst_anon'].split()[0]):.1f}, dunst {mib(r['dunst_anon'].split()[1]):.1f} MiB", ""),
    ("", "", f"idle trivial services: C {mib(floor_rss_c):.1f}, Swift {mib(floor_rss_swift):.1f} MiB", ""),
    ("", "", f"idle Swift service, FoundationEssentials + SQLite {mib(floor_rss_store):.1f} MiB",
     f"{floor_rss_store / int(r['dunst_rss'].split()[1]):.2f} store floor / dunst"),
    ("installed chime + chimed, stripped", f"{sum(map(int, r['sizes'].split()[:2])) / 1e6:.1f} MB",
     f"dunst {int(r['sizes'].split()[2]) / 1e6:.1f} MB; target 12 MB", f"{sum(map(int, r['sizes'].split()[:2])) / 12e6:.2f}"),
    ("", "", f"chime {int(r['sizes'].split()[0]) / 1e6:.1f} MB, chimed {int(r['sizes'].split()[1]) / 1e6:.1f} MB", ""),
    ("", "", f"trivial Swift service {floor_size / 1e6:.1f} MB; two {2 * floor_size / 1e6:.1f} MB", f"{2 * floor_size / 12e6:.2f} two floors / target"),
    ("", "", f"Swift service, FoundationEssentials + SQLite {floor_store_size / 1e6:.1f} MB", f"{floor_store_size / 12e6:.2f} store floor / target"),
    ("chime import, 5,000 events", f"{int(r['import_ms']) / 1000:.2f} s", "target <= 1 s", f"{int(r['import_ms']) / 1000:.2f}"),
    ("the same file again, updated in place", f"{int(r['reimport_ms']) / 1000:.2f} s", "target <= 1 s", f"{int(r['reimport_ms']) / 1000:.2f}"),
    ("make check's test run (built before)", f"{int(r['check'].split()[0]) / 1000:.1f} s",
     f"{r['check'].split()[1]} in-process tests; target < 60 s", f"{int(r['check'].split()[0]) / 60000:.2f}"),
]
for name, value, peer, ratio in rows:
    print(f"{name:<40} {value:>11}   {peer:<34} {ratio}".rstrip())

# Scale: one column per size; growth is the largest size's figure over the smallest's.
def stage(f, index, q):
    values = sorted(float(pair.split(":")[index]) for pair in f[7].split(","))
    return values[min(len(values) - 1, int(q * len(values)))]

sizes = sorted(int(k[6:]) for k in r if k[6:].isdigit() and k.startswith("scale_"))
if sizes:
    figures = {n: r[f"scale_{n}"].split() for n in sizes}
    label = lambda n: f"{n // 1000000}M" if n % 1000000 == 0 else f"{n // 1000}k"
    measures = [
        ("start-up to ready", lambda f: float(f[0]), "ms", "target <= 2000 ms at 1M"),
        ("of it chimed from main", lambda f: float(f[1]), "ms", ""),
        ("RSS after start-up", lambda f: int(f[2]) / 1024, "MiB", "target <= 256 MiB at 1M"),
        ("peak RSS", lambda f: int(f[3]) / 1024, "MiB", ""),
        ("fire lateness p50, 20 together", lambda f: float(f[4]), "ms", ""),
        ("fire lateness p99, 20 together", lambda f: float(f[5]), "ms", "target: unchanged"),
        ("RSS after firing", lambda f: int(f[6]) / 1024, "MiB", ""),
        ("chimed: woke after due, p99", lambda f: stage(f, 0, 0.99), "ms", "timerfd and the scheduler"),
        ("chimed: last of 20 out, p50", lambda f: stage(f, 1, 0.5), "ms", "after waking"),
        ("chimed: last of 20 out, p99", lambda f: stage(f, 1, 0.99), "ms", "the rest is the bus and the monitor"),
    ]
    print()
    head = "".join(f"{label(n):>11}" for n in sizes)
    print(f"{'scale':<32}{head}   growth {label(sizes[0])} to {label(sizes[-1])}")
    for name, value, unit, target in measures:
        cells = [value(figures[n]) for n in sizes]
        text = "".join(f"{c:>11.1f}" for c in cells)
        growth = f"{cells[-1] / cells[0]:.1f}x" if cells[0] else ""
        print(f"{name + ' (' + unit + ')':<32}{text}   {growth:<8} {target}".rstrip())
    count, ms = r["scale_cancel"].split()
    print(f"{'CancelAll of ' + count:<32}{int(ms):>11} ms   target <= 2000 ms")
PY
echo
sed '1,/^$/d' "$CHIME_TMP/calendars.out"
sed '1,/^$/d' "$CHIME_TMP/caldav.out"
