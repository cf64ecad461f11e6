#!/usr/bin/env bash
# make soak: the fault rounds of scripts/faults.sh again and again for SOAK_MINUTES
# (default 10), against the release chimed on a private bus, then the totals: how
# many due reminders reached a server through server churn and how many copies that
# cost, and how many acknowledged schedules SIGKILL lost. Then 10 rounds a minute of
# the bus going away (the test suite's busLossSoak: idle, scheduling, a Notify in
# flight, starting up), with how soon chimed left. Not part of make test; the tests
# must be built (swift build --build-tests).
#
# CHIME_BIN_DIR   where chime, chimed and chime-bench are (default .build/release)
# SOAK_MINUTES    how long to go on (default 10)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=scripts/faults.sh
source "$(dirname "${BASH_SOURCE[0]}")/faults.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/release}
minutes=${SOAK_MINUTES:-10}
FAULTS_CHIME=$bin_dir/chime
FAULTS_BENCH=$bin_dir/chime-bench
for tool in "$FAULTS_CHIME" "$bin_dir/chimed" "$FAULTS_BENCH"; do
    [[ -x $tool ]] || chime_die "$tool is missing: run 'make release' first"
done

chime_setup
CHIME_SERVICE_DIR=$CHIME_TMP/services
mkdir -p "$CHIME_SERVICE_DIR"
sed "s|@CHIMED@|$bin_dir/chimed|" "$CHIME_ROOT/dbus/io.github.chime.Chime.service.in" \
    >"$CHIME_SERVICE_DIR/io.github.chime.Chime.service"
chime_private_store
export XDG_CONFIG_HOME=$CHIME_TMP/config
mkdir -p "$XDG_CONFIG_HOME"
chime_start_bus

deadline=$(($(date +%s) + minutes * 60))
rounds=0 due=0 delivered=0 copies=0 kills=0 acknowledged=0 lost=0 revived=0
echo "Soaking for $minutes min…"
while (($(date +%s) < deadline)); do
    rounds=$((rounds + 1))
    echo "Round $rounds"
    faults_churn_round 200 5
    due=$((due + faults_due)) delivered=$((delivered + faults_delivered)) copies=$((copies + faults_copies))
    faults_kill_round 20
    kills=$((kills + faults_kills)) acknowledged=$((acknowledged + faults_acknowledged))
    lost=$((lost + faults_lost)) revived=$((revived + faults_revived))
done

echo
printf '%-44s %s\n' "rounds" "$rounds"
printf '%-44s %s\n' "due reminders reaching a server, churn" "$delivered of $due ($((rounds * 5)) server restarts)"
printf '%-44s %s\n' "copies shown twice, churn" "$copies"
printf '%-44s %s\n' "acknowledged schedules lost, SIGKILL" "$lost of $acknowledged ($kills kills)"
printf '%-44s %s\n' "acknowledged cancels undone, SIGKILL" "$revived"
((delivered == due && lost == 0 && revived == 0)) || chime_die "something acknowledged was lost"

echo
echo "The bus going away, $((minutes * 10)) rounds…"
# The suite's own rounds, with the release binaries.
(cd "$CHIME_ROOT" && CHIME_BIN_DIR=$bin_dir CHIME_SOAK_BUS_ROUNDS=$((minutes * 10)) \
    "${SWIFT:-swift}" test --skip-build --filter busLossSoak 2>&1) | grep -E '^bus loss|✘' ||
    chime_die "the bus-loss rounds did not run"

