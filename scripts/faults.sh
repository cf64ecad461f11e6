# shellcheck shell=bash
# Fault rounds for make bench and make soak: each makes one thing fail under a real
# chimed on the private bus of scripts/lib.sh and prints one line of figures. Source
# lib.sh first, call chime_setup and chime_start_bus; FAULTS_CHIME and FAULTS_BENCH
# name the chime and chime-bench to use.

_faults_rounds=0

# Starts the mock notification server, logging every call to FILE (the log outlives
# it); with SECONDS, each Notify takes that long, as a server busy drawing does.
faults_start_server() {
    local log=$1 slow=${2:-}
    /usr/bin/python3 -m dbusmock --session -t notification_daemon \
        -p '{"capabilities": "body actions sound"}' -l "$log" >>"$CHIME_TMP/mock.log" 2>&1 &
    CHIME_MOCK_PID=$!
    chime_track "$CHIME_MOCK_PID"
    _chime_wait_for_name org.freedesktop.Notifications "$CHIME_MOCK_PID" mock
    [[ -z $slow ]] && return
    dbus-send --session --print-reply --dest=org.freedesktop.Notifications /org/freedesktop/Notifications \
        org.freedesktop.DBus.Mock.AddMethod string:org.freedesktop.Notifications string:Notify \
        string:'susssasa{sv}i' string:u string:"import time
time.sleep($slow)
ret = self.next_id
self.next_id += 1" >/dev/null || chime_die "cannot slow the mock server down"
}

# Kills the mock server with SIGKILL: it can answer nothing it holds.
faults_kill_server() {
    [[ -n ${CHIME_MOCK_PID:-} ]] || return 0
    kill -KILL "$CHIME_MOCK_PID" 2>/dev/null
    # Reaped here, so the shell does not report the killed job.
    wait "$CHIME_MOCK_PID" 2>/dev/null || true
}

# The titles of the Notify calls the servers logged, one per line.
faults_titles() {
    # TIME Notify "app" 0 "icon" "title" …: the title is the sixth field between quotes.
    cat "$@" 2>/dev/null | awk -F'"' '/ Notify "/ { print $6 }'
}

# One round of server churn: COUNT reminders due at once while the server (10 ms a
# call) is killed and restarted RESTARTS times, 300 ms apart. Leaves the figures in
# faults_due, faults_delivered (distinct titles some server received) and faults_copies.
faults_churn_round() {
    local count=$1 restarts=$2 round=$((++_faults_rounds)) prefix i
    prefix=churn$round
    local logs=("$CHIME_TMP/churn-$round-0.log")
    faults_kill_server
    faults_start_server "${logs[0]}" 0.01
    local due
    due=$(date -d "@$(($(date +%s) + 2))" --iso-8601=seconds)
    "$FAULTS_BENCH" schedule --count "$count" --window 256 --when "$due" --prefix "$prefix" >/dev/null ||
        chime_die "scheduling the churn round failed"
    while (($(date +%s) < $(date -d "$due" +%s))); do sleep 0.05; done
    for ((i = 1; i <= restarts; i++)); do
        sleep 0.3
        faults_kill_server
        logs+=("$CHIME_TMP/churn-$round-$i.log")
        faults_start_server "${logs[i]}" 0.01
    done
    # The servers have no signal for a received call: read their logs until all came.
    for ((i = 0; i < 600; i++)); do
        (($(faults_titles "${logs[@]}" | grep -c "^$prefix-" || true) >= count)) &&
            (($(faults_titles "${logs[@]}" | grep "^$prefix-" | sort -u | wc -l) >= count)) && break
        sleep 0.1
    done
    faults_due=$count
    faults_delivered=$(faults_titles "${logs[@]}" | grep "^$prefix-" | sort -u | wc -l)
    faults_copies=$(($(faults_titles "${logs[@]}" | grep -c "^$prefix-" || true) - faults_delivered))
    echo "  server churn: $faults_delivered of $faults_due due reached a server through $restarts restarts, $faults_copies copies"
}

# One round of SIGKILLs: a client schedules and cancels for SECONDS while chimed is
# killed at random moments. Leaves faults_acknowledged, faults_lost (acknowledged
# schedules missing afterwards), faults_revived (acknowledged cancels back) and faults_kills.
faults_kill_round() {
    local seconds=$1 round=$((++_faults_rounds)) ledger pid end last i=0 id
    ledger=$CHIME_TMP/kill-$round.ledger
    : >"$ledger"
    (
        end=$(($(date +%s) + seconds))
        while (($(date +%s) < end)); do
            if out=$("$FAULTS_CHIME" add "K$round-$i" --in 1d 2>/dev/null); then id=${out%% *}; echo "add $id" >>"$ledger"; last=$id; fi
            if ((i % 3 == 2)) && [[ -n ${last:-} ]]; then
                echo "try $last" >>"$ledger"
                "$FAULTS_CHIME" cancel "$last" 2>/dev/null && echo "cancel $last" >>"$ledger"
                last=
            fi
            i=$((i + 1))
        done
    ) &
    local client=$!
    faults_kills=0
    while kill -0 "$client" 2>/dev/null; do
        sleep "0.$((RANDOM % 400 + 50))"
        pid=$(chime_name_owner_pid io.github.chime.Chime 2>/dev/null) || continue
        kill -KILL "$pid" 2>/dev/null && faults_kills=$((faults_kills + 1))
    done
    wait "$client"
    local listed
    listed=$("$FAULTS_CHIME" list --json) || chime_die "chime list failed after the kills"
    faults_acknowledged=$(grep -c '^add ' "$ledger" || true)
    faults_lost=0
    faults_revived=0
    while read -r kind id; do
        case $kind in
            add) grep -q "^try $id\$" "$ledger" || [[ $listed == *"\"$id\""* ]] || faults_lost=$((faults_lost + 1)) ;;
            cancel) [[ $listed == *"\"$id\""* ]] && faults_revived=$((faults_revived + 1)) ;;
        esac
    done <"$ledger"
    "$FAULTS_CHIME" cancel --all --yes >/dev/null 2>&1 || true
    echo "  SIGKILL: $faults_kills kills, $faults_acknowledged acknowledged schedules, $faults_lost lost, $faults_revived cancels undone"
}
