#!/usr/bin/env bash
# Measures what Chime promises: `chime notify` costs no more than notify-send,
# and an idle chimed never wakes up. Prints figures; a missed target is not a
# failure, a tool that errors is.
#
# CHIME_BIN_DIR       where chime and chimed are (default .build/release)
# BENCH_RUNS          timed runs of each command (default 200)
# BENCH_IDLE_SECONDS  how long to watch the idle daemon (default 30)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/release}
chime=$bin_dir/chime
chimed=$bin_dir/chimed
runs=${BENCH_RUNS:-200}
idle_seconds=${BENCH_IDLE_SECONDS:-30}
service=$CHIME_SERVICE_DIR/io.github.chime.Chime.service

for tool in "$chime" "$chimed"; do
    [[ -x $tool ]] || chime_die "$tool is missing: run 'make release' first"
done
# Timing a debug chimed against a release chime would say nothing.
exec_line=$(grep -m 1 '^Exec=' "$service" 2>/dev/null) || exec_line=
if [[ $(realpath -q "${exec_line#Exec=}") != $(realpath "$chimed") ]]; then
    chime_die "$service does not start $chimed: run 'make services CONFIG=release'"
fi

chime_setup
chime_start_bus
chime_start_mock

# The first call activates chimed; time only calls to a running daemon.
"$chime" notify "Warm-up" "Starts chimed" >/dev/null ||
    chime_die "chime notify failed"
notify-send "Warm-up" "Connects to the mock" || chime_die "notify-send failed"
chimed_pid=$(chime_name_owner_pid io.github.chime.Chime 2>/dev/null) ||
    chime_die "chimed does not own io.github.chime.Chime after chime notify"

json=$CHIME_TMP/notify.json
printf -v chime_cmd '%q notify Tea Ready' "$chime"
hyperfine -N --style basic --runs "$runs" --warmup 10 --export-json "$json" \
    -n chime "$chime_cmd" -n notify-send "notify-send Tea Ready"

# Sums over every thread: /proc/PID/status alone counts the main thread only.
context_switches() {
    local pid=$1 total=0 key value _
    while read -r key value _; do
        case $key in
            voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:)
                total=$((total + value)) ;;
        esac
    done < <(cat "/proc/$pid"/task/*/status 2>/dev/null)
    echo "$total"
}

status_field() {
    local key value _
    while read -r key value _; do
        [[ $key == "$2:" ]] && { echo "$value"; return; }
    done <"/proc/$1/status"
}

kill -0 "$chimed_pid" 2>/dev/null || chime_die "chimed exited during the timing runs"
echo
echo "Watching the idle chimed (pid $chimed_pid) for $idle_seconds s…"
before=$(context_switches "$chimed_pid")
sleep "$idle_seconds"
kill -0 "$chimed_pid" 2>/dev/null || chime_die "chimed exited while idle"
after=$(context_switches "$chimed_pid")
chimed_rss=$(status_field "$chimed_pid" VmRSS)
chimed_threads=$(status_field "$chimed_pid" Threads)
mock_rss=$(status_field "$CHIME_MOCK_PID" VmRSS)

echo
/usr/bin/python3 - "$json" "$idle_seconds" "$((after - before))" \
    "$chimed_rss" "$chimed_threads" "$mock_rss" <<'PY'
import json, sys
path, idle, wakeups, chimed_kib, threads, mock_kib = sys.argv[1:]
results = {r["command"]: r for r in json.load(open(path))["results"]}
chime = results["chime"]["median"] * 1000
send = results["notify-send"]["median"] * 1000
rows = [
    ("chime notify, median", f"{chime:.2f} ms", ""),
    ("notify-send, median", f"{send:.2f} ms", ""),
    ("chime / notify-send", f"{chime / send:.2f}", "target <= 1.0"),
    (f"chimed wake-ups in {idle} s", wakeups, "target 0"),
    ("chimed idle RSS", f"{int(chimed_kib) / 1024:.1f} MiB", f"{threads} threads"),
    ("mock server RSS", f"{int(mock_kib) / 1024:.1f} MiB", "for scale (Python)"),
]
for name, value, note in rows:
    print(f"{name:<28} {value:>10}   {note}".rstrip())
PY
