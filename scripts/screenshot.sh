#!/usr/bin/env bash
# Makes docs/reminder.png, the README's picture, from a real run: chimed fires a
# reminder on a private bus, dunst shows it on Xvfb, and dunst's button menu
# (dunstctl context, drawn by dmenu) lists the reminder's buttons. Not part of the
# tests; rerun it when the look of a reminder changes: make screenshot.
#
# CHIME_BIN_DIR   where chime and chimed are (default .build/debug)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/debug}
chime=$bin_dir/chime
out=$CHIME_ROOT/docs/reminder.png
service=$CHIME_SERVICE_DIR/io.github.chime.Chime.service
[[ -x $chime && -f $service ]] || chime_die "run 'make build' first"
for tool in dmenu import xdotool; do
    command -v "$tool" >/dev/null || chime_die "$tool is missing: run 'scripts/deps.sh screenshot'"
done

chime_setup
chime_private_store
export XDG_CONFIG_HOME=$CHIME_TMP/config
chime_start_bus
chime_start_x
chime_start_dunst "$CHIME_ROOT/docs/screenshot.dunstrc"

"$chime" add "Pay the rent" "Transfer to the landlord before the 3rd" --in 1s \
    --category reminder >/dev/null || chime_die "chime add failed"
window=$(timeout 30 xdotool search --sync --onlyvisible --class dunst | head -n 1) ||
    chime_die "dunst showed no notification"
dunstctl context >/dev/null 2>&1 &
chime_track $!
menu=$(timeout 30 xdotool search --sync --onlyvisible --class dmenu | head -n 1) ||
    chime_die "dunst's menu did not open"
# Both windows are at the top of the screen: the menu bar and, below its right end,
# the popup. X tells when a window maps, not when it has drawn: give them a moment.
sleep 0.5
eval "$(xdotool getwindowgeometry --shell "$window")"
bottom=$((Y + HEIGHT + 16))
import -window root -crop "1280x${bottom}+0+0" +repage "$out"
echo "$out (menu window $menu, popup window $window)"
