# shellcheck shell=bash
# Private session bus, notification servers and cleanup for the scripts
# beside this file. Source it, call chime_setup, then start what you need;
# everything started is stopped, and the temporary folder removed, on exit.

CHIME_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The private bus searches this folder only, so a notification server
# registered system-wide (Debian's dunst) is never activated behind our back.
CHIME_SERVICE_DIR=${CHIME_SERVICE_DIR:-$CHIME_ROOT/.build/chime-services}
CHIME_TMP=
CHIME_BUS_PID=

_chime_pids=()

chime_die() {
    echo "${0##*/}: $*" >&2
    exit 1
}

chime_setup() {
    CHIME_TMP=$(mktemp -d "${TMPDIR:-/tmp}/chime.XXXXXX")
    trap _chime_cleanup EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# A schedule and a history of the script's own (XDG_DATA_HOME and XDG_STATE_HOME in
# its temporary folder), for every chimed it starts: the bus hands its environment to
# what it activates, and without both a run would write to the user's store or history.
chime_private_store() {
    export XDG_DATA_HOME=$CHIME_TMP/data XDG_STATE_HOME=$CHIME_TMP/state
    mkdir -p "$XDG_DATA_HOME" "$XDG_STATE_HOME"
}

# Registers a process started by the caller, to be stopped on exit.
chime_track() {
    _chime_pids+=("$1")
}

# Starts `"$@" 3>FIFO` in the background and leaves the first line the
# command writes to its descriptor 3 in _chime_reported: that is how
# dbus-daemon and Xvfb say they are ready. The write end is opened before
# exec, so a command that fails to start closes it and the read ends at once
# instead of hanging.
_chime_start_reporting() {
    local name=$1 line
    shift
    local fifo=$CHIME_TMP/$name.fd3
    mkfifo "$fifo"
    "$@" 3>"$fifo" >"$CHIME_TMP/$name.log" 2>&1 &
    _chime_last_pid=$!
    chime_track "$_chime_last_pid"
    if ! IFS= read -r -t 30 line <"$fifo" || [[ -z $line ]]; then
        cat "$CHIME_TMP/$name.log" >&2
        chime_die "$name did not start"
    fi
    rm -f "$fifo"
    _chime_reported=$line
}

_chime_xml_escape() {
    local s=$1
    s=${s//&/&amp;}
    s=${s//</&lt;}
    s=${s//>/&gt;}
    printf '%s' "$s"
}

# Starts a session bus of our own and points DBUS_SESSION_BUS_ADDRESS at it.
chime_start_bus() {
    local config=$CHIME_TMP/session.conf
    mkdir -p "$CHIME_SERVICE_DIR"
    # The same configuration the Swift tests use.
    sed -e "s|@SERVICEDIR@|$(_chime_xml_escape "$CHIME_SERVICE_DIR")|" \
        -e "s|@SOCKETDIR@|$(_chime_xml_escape "$CHIME_TMP")|" \
        "$CHIME_ROOT/Tests/session-bus.conf.in" >"$config"
    _chime_start_reporting bus \
        dbus-daemon --config-file="$config" --nofork --print-address=3
    CHIME_BUS_PID=$_chime_last_pid
    export DBUS_SESSION_BUS_ADDRESS=$_chime_reported
    unset DBUS_STARTER_ADDRESS DBUS_STARTER_BUS_TYPE
}

# Starts a system bus of our own, where chime-bench plays GeoClue and
# NetworkManager, and points DBUS_SYSTEM_BUS_ADDRESS at it. Call it before
# chime_start_bus: the session bus hands its environment to the chimed it
# activates, which then has a system bus from its start, as on a desktop.
chime_start_system_bus() {
    local config=$CHIME_TMP/system.conf
    # The same configuration the Swift tests use: no service directory, so
    # nothing of the machine's is ever started on it.
    sed -e "s|@SOCKET@|$(_chime_xml_escape "$CHIME_TMP/system_bus_socket")|" \
        "$CHIME_ROOT/Tests/system-bus.conf.in" >"$config"
    _chime_start_reporting system-bus \
        dbus-daemon --config-file="$config" --nofork --print-address=3
    export DBUS_SYSTEM_BUS_ADDRESS=$_chime_reported
}

# Prints how many connections process PID holds on our system bus.
chime_system_bus_connections() {
    local pid=$1 names name reply count=0
    names=$(gdbus call --system --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.ListNames) || return 1
    for name in $(grep -o "':[^']*'" <<<"$names" | tr -d "'"); do
        reply=$(gdbus call --system --dest org.freedesktop.DBus \
            --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.GetConnectionUnixProcessID "$name" 2>/dev/null) || continue
        [[ $reply == "(uint32 $pid,)" ]] && count=$((count + 1))
    done
    echo "$count"
}

# True when some connection owns NAME on the session bus.
chime_name_has_owner() {
    local reply
    reply=$(gdbus call --session --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null) || return 1
    [[ $reply == "(true,)" ]]
}

# Prints the process id of NAME's owner on the session bus.
chime_name_owner_pid() {
    local reply
    reply=$(gdbus call --session --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.GetConnectionUnixProcessID "$1") || return 1
    reply=${reply#"(uint32 "}
    printf '%s\n' "${reply%",)"}"
}

_chime_wait_for_name() {
    local name=$1 pid=$2 what=$3
    if ! gdbus wait --session --timeout 30 "$name"; then
        cat "$CHIME_TMP/$what.log" >&2 2>/dev/null
        chime_die "$what did not take $name within 30 s"
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
        cat "$CHIME_TMP/$what.log" >&2 2>/dev/null
        chime_die "$what exited"
    fi
}

# Prints how many times process PID has been switched out, voluntarily or not, summed over
# every thread (/proc/PID/status alone counts the main thread only): each is a wake-up.
chime_context_switches() {
    local key value _ total=0
    while read -r key value _; do
        case $key in
            voluntary_ctxt_switches: | nonvoluntary_ctxt_switches:)
                total=$((total + value)) ;;
        esac
    done < <(cat "/proc/$1"/task/*/status 2>/dev/null)
    echo "$total"
}

# Waits, for at most 5 s, until process PID has half a second without a wake-up: what the
# last work set going (a server's replies, log lines, the store's writes) is over before
# an idle count starts.
chime_wait_until_still() {
    local i before
    for ((i = 0; i < 10; i++)); do
        before=$(chime_context_switches "$1")
        sleep 0.5
        (($(chime_context_switches "$1") == before)) && return
    done
}

# Starts python-dbusmock's notification server on the session bus.
chime_start_mock() {
    # Debian's interpreter: the one python3-dbusmock installs into.
    /usr/bin/python3 -m dbusmock --session -t notification_daemon \
        -p '{"capabilities": "body actions sound"}' \
        >"$CHIME_TMP/mock.log" 2>&1 &
    CHIME_MOCK_PID=$!
    chime_track "$CHIME_MOCK_PID"
    _chime_wait_for_name org.freedesktop.Notifications "$CHIME_MOCK_PID" mock
}

# Starts an X server of our own on a free display and exports DISPLAY.
chime_start_x() {
    _chime_start_reporting xvfb \
        Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp
    export DISPLAY=:$_chime_reported
    unset WAYLAND_DISPLAY
}

# Starts dunst on the session bus and $DISPLAY with a configuration of ours:
# popups stay until clicked, and a left click anywhere on one invokes its
# "default" action, so clicking the middle of dunst's window presses it.
chime_start_dunst() {
    # The same configuration the end-to-end tests use, unless given another.
    local rc=${1:-$CHIME_ROOT/Tests/servers/dunstrc}
    dunst -config "$rc" >"$CHIME_TMP/dunst.log" 2>&1 &
    CHIME_DUNST_PID=$!
    chime_track "$CHIME_DUNST_PID"
    _chime_wait_for_name org.freedesktop.Notifications "$CHIME_DUNST_PID" dunst
}

# Stops PID: TERM, then KILL if it is still there after 5 s. Polls /proc
# because a bus-activated service is not our child and cannot be waited for;
# it counts as gone once its own parent has reaped it.
_chime_stop() {
    local pid=$1 stat state ppid i
    kill -TERM "$pid" 2>/dev/null || return 0
    for ((i = 0; i < 250; i++)); do
        # read, not $(<…): under set -e a missing file there ends the script, and with it
        # the clean-up of everything started after this process.
        read -r stat 2>/dev/null <"/proc/$pid/stat" || break
        read -r state ppid _ <<<"${stat##*) }"
        [[ $state == Z && $ppid == "$$" ]] && break
        sleep 0.02
    done
    if ((i == 250)); then
        kill -KILL "$pid" 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
}

# Owners of well-known names on our private bus: the services it activated
# (chimed) are children of the bus, not of this script, so only the bus knows
# them.
_chime_bus_service_pids() {
    local names name
    names=$(gdbus call --session --dest org.freedesktop.DBus \
        --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.ListNames 2>/dev/null) || return 0
    for name in $(grep -o "'[^':][^']*'" <<<"$names" | tr -d "'"); do
        [[ $name == org.freedesktop.DBus ]] && continue
        chime_name_owner_pid "$name" 2>/dev/null
    done | sort -u
}

_chime_cleanup() {
    set +e
    local i pid
    if [[ -n $CHIME_BUS_PID ]] && kill -0 "$CHIME_BUS_PID" 2>/dev/null; then
        for pid in $(_chime_bus_service_pids); do
            [[ $pid == "$$" ]] || _chime_stop "$pid"
        done
    fi
    for ((i = ${#_chime_pids[@]} - 1; i >= 0; i--)); do
        _chime_stop "${_chime_pids[i]}"
    done
    [[ -n $CHIME_TMP ]] && rm -rf "$CHIME_TMP"
}
