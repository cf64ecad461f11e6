#!/usr/bin/env bash
# Shows the point of Chime: a button pressed on a notification reaches Chime
# after the command that sent it has exited. Uses the desktop's notification
# server when there is one; otherwise dunst on a private X server and bus,
# clicked with xdotool.
#
# CHIME_BIN_DIR   where chime and chimed are (default .build/debug)
# DEMO_SCREENSHOT save a screenshot of the notification there (needs ImageMagick)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/debug}
chime=$bin_dir/chime
chimed=$bin_dir/chimed
title="Tea is ready"
body="Press a button — Chime hears it even after this command has exited"

for tool in "$chime" "$chimed"; do
    [[ -x $tool ]] || chime_die "$tool is missing: run 'make build' first"
done

chime_setup

# Saves window $1 (default: the whole screen) to $DEMO_SCREENSHOT.
screenshot() {
    [[ -n ${DEMO_SCREENSHOT:-} && -n ${DISPLAY:-} ]] || return 0
    command -v import >/dev/null 2>&1 || return 0
    import -window "${1:-root}" "$DEMO_SCREENSHOT" 2>/dev/null &&
        echo "Screenshot saved to $DEMO_SCREENSHOT"
}

if [[ -n ${DBUS_SESSION_BUS_ADDRESS:-} ]] &&
   chime_name_has_owner org.freedesktop.Notifications; then
    desktop=1
    echo "Using your desktop's notification server."
    if chime_name_has_owner io.github.chime.Chime; then
        echo "Using the chimed already running (pid $(chime_name_owner_pid io.github.chime.Chime))."
    else
        # The desktop bus does not know our build folder, so it cannot
        # activate this chimed: start it by hand for the length of the demo.
        "$chimed" 2>"$CHIME_TMP/chimed.log" &
        chimed_pid=$!
        chime_track "$chimed_pid"
        if ! gdbus wait --session --timeout 30 io.github.chime.Chime ||
           ! kill -0 "$chimed_pid" 2>/dev/null; then
            cat "$CHIME_TMP/chimed.log" >&2
            chime_die "chimed did not start"
        fi
    fi
else
    desktop=0
    service=$CHIME_SERVICE_DIR/io.github.chime.Chime.service
    [[ -f $service ]] || chime_die "$service is missing: run 'make services' first"
    echo "No desktop notification server here: starting dunst on a private X server and bus."
    # The demo neither touches nor contends with the user's schedule.
    chime_private_store
    chime_start_bus
    chime_start_x
    chime_start_dunst
fi

# gdbus monitor prints one line per signal Chime emits; reading them from a
# coprocess lets us wait for the press itself rather than poll a file.
coproc MONITOR { exec gdbus monitor --session --dest io.github.chime.Chime 2>&1; }
chime_track "$MONITOR_PID"
monitor_fd=${MONITOR[0]}

# Echoes monitor lines until one matches the glob $1, leaving it in
# $monitor_line; fails at EOF or when $2 seconds have gone by.
await_monitor() {
    local pattern=$1 deadline=$((SECONDS + $2)) left
    while left=$((deadline - SECONDS)); ((left > 0)); do
        IFS= read -r -t "$left" monitor_line <&"$monitor_fd" || return 1
        printf '  monitor | %s\n' "$monitor_line"
        # shellcheck disable=SC2053 # the pattern is meant as a glob
        [[ $monitor_line == $pattern ]] && return 0
    done
    return 1
}

# Its first answer about the name's owner comes after its match rule is in
# place, so from then on no signal can slip past it.
await_monitor "The name io.github.chime.Chime *" 10 ||
    chime_die "gdbus monitor did not start"

echo "\$ chime notify -p -A default=Open -A snooze=\"Remind me\" \"$title\" \"…\""
id=$("$chime" notify -p -A default=Open -A snooze="Remind me" "$title" "$body") ||
    chime_die "chime notify failed"
id=${id//[[:space:]]/}
[[ -n $id ]] || chime_die "chime notify -p printed no id"
echo "chime notify exited; Chime's id for the notification: $id"

if ((desktop)); then
    screenshot
    echo "Press a button on the notification \"$title\" (waiting up to 2 minutes)."
    wait_seconds=120
else
    window=$(timeout 30 xdotool search --sync --onlyvisible --class dunst | head -n 1) || true
    [[ -n $window ]] || chime_die "dunst showed no notification window"
    screenshot "$window"
    eval "$(xdotool getwindowgeometry --shell "$window")"
    echo "Clicking the notification (dunst window $window)."
    xdotool mousemove --window "$window" $((WIDTH / 2)) $((HEIGHT / 2)) click 1
    wait_seconds=30
fi

# gdbus prints a string argument as 'text', or "text" when it holds a quote.
q="['\"]"
pressed_re="\.ActionInvoked \(${q}([^'\"]*)${q}, ${q}([^'\"]*)${q}"
closed_re="\.Closed \(${q}([^'\"]*)${q}, uint32 ([0-9]+)"
deadline=$((SECONDS + wait_seconds))
while await_monitor "*" $((deadline - SECONDS)); do
    if [[ $monitor_line =~ $pressed_re && ${BASH_REMATCH[1]} == "$id" ]]; then
        echo "button pressed: ${BASH_REMATCH[2]} on $id"
        exit 0
    fi
    if [[ $monitor_line =~ $closed_re && ${BASH_REMATCH[1]} == "$id" ]]; then
        chime_die "the notification was closed (reason ${BASH_REMATCH[2]}) without a button press"
    fi
done
chime_die "no button press reached Chime within $wait_seconds s"
