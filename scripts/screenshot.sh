#!/usr/bin/env bash
# Makes docs/reminder.png, the README's picture, from a real run: chimed fires a
# reminder on a private bus and GNOME Shell, headless, shows it as a banner with its
# Complete and Remind buttons, which the shell itself photographs. Not part of the tests;
# rerun it when the look of a reminder changes: make screenshot.
#
# CHIME_BIN_DIR   where chime and chimed are (default .build/debug)
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

bin_dir=${CHIME_BIN_DIR:-$CHIME_ROOT/.build/debug}
chime=$bin_dir/chime
out=$CHIME_ROOT/docs/reminder.png
service=$CHIME_SERVICE_DIR/io.github.chime.Chime.service
notifications=/usr/share/gnome-shell/org.gnome.Shell.Notifications
[[ -x $chime && -f $service ]] || chime_die "run 'make build' first"
for file in /usr/bin/gnome-shell /usr/bin/gjs "$notifications"; do
    [[ -e $file ]] || chime_die "$file is missing: run 'scripts/deps.sh screenshot'"
done

chime_setup
chime_private_store
export XDG_CONFIG_HOME=$CHIME_TMP/config
# mutter's native backend will not start without a logind session: a fake one, on a
# system bus of our own, as ServerMatrixTests gives it.
chime_start_system_bus
/usr/bin/python3 -m dbusmock --system --template logind >"$CHIME_TMP/logind.log" 2>&1 &
chime_track $!
gdbus wait --system --timeout 30 org.freedesktop.login1 || chime_die "the fake logind did not start"
chime_start_bus

# The shell's home, settings (in memory) and runtime folder are ours: the machine's
# dconf and the user's session are never touched.
for name in home runtime cache; do
    mkdir -m 0700 "$CHIME_TMP/$name"
done
export HOME=$CHIME_TMP/home XDG_RUNTIME_DIR=$CHIME_TMP/runtime XDG_CACHE_HOME=$CHIME_TMP/cache
export GSETTINGS_BACKEND=memory
unset DISPLAY WAYLAND_DISPLAY
# --unsafe-mode lets this script call org.gnome.Shell.Eval and the Screenshot interface.
gnome-shell --headless --unsafe-mode --virtual-monitor 1280x800 >"$CHIME_TMP/shell.log" 2>&1 &
chime_track $!
for ((i = 0; i < 240; i++)); do
    grep -q "GNOME Shell started at" "$CHIME_TMP/shell.log" && break
    sleep 0.5
done
grep -q "GNOME Shell started at" "$CHIME_TMP/shell.log" || {
    tail -n 30 "$CHIME_TMP/shell.log" >&2
    chime_die "gnome-shell did not finish starting"
}

shell_eval() {
    gdbus call --session --dest org.gnome.Shell --object-path /org/gnome/Shell \
        --method org.gnome.Shell.Eval "$1"
}

# GNOME Shell 43's notification name is owned by a gjs service of its own.
/usr/bin/gjs "$notifications" >"$CHIME_TMP/notifications.log" 2>&1 &
chime_track $!
gdbus wait --session --timeout 30 org.freedesktop.Notifications ||
    chime_die "org.gnome.Shell.Notifications did not start"

title="Pay the rent"
"$chime" add "$title" "Transfer to the landlord before the 3rd" --in 1s \
    --category reminder -i alarm-symbolic >/dev/null || chime_die "chime add failed"

# The shell starts in the overview and greets with notices of its own (run as root: no
# screen lock), which an idle headless shell never hides and which would hold the
# reminder's banner back: leave the overview, drop every notice that is not the
# reminder, and open the banner as a pointer over it would, which shows its buttons.
ready=
for ((i = 0; i < 150; i++)); do
    reply=$(shell_eval "(() => {
        const Main = imports.ui.main;
        Main.overview.hide();
        const tray = Main.messageTray;
        [tray._notification, ...tray._notificationQueue]
            .filter(n => n && n.title !== '$title').forEach(n => n.destroy());
        const banner = tray._banner;
        if (banner?.notification?.title !== '$title' || !banner._buttonBox) return 'waiting';
        banner.expand(false);
        const [x, y] = tray._bannerBin.get_transformed_position();
        const [width, height] = tray._bannerBin.get_transformed_size();
        return [x, y, width, height].map(Math.round).join(' ');
    })()") || chime_die "org.gnome.Shell.Eval failed: $reply"
    # Eval answers (true, 'JSON'): here a string of four numbers.
    if [[ $reply =~ ([0-9]+\ [0-9]+\ [0-9]+\ [0-9]+) ]]; then
        ready=${BASH_REMATCH[1]}
        break
    fi
    sleep 0.2
done
[[ -n $ready ]] || chime_die "GNOME Shell showed no banner for the reminder"
read -r x y width height <<<"$ready"
# The banner slides in: let it settle, then take it with the top bar above it and a
# margin of desktop around it.
sleep 1
margin=48
gdbus call --session --dest org.gnome.Shell --object-path /org/gnome/Shell/Screenshot \
    --method org.gnome.Shell.Screenshot.ScreenshotArea \
    $((x - margin)) 0 $((width + 2 * margin)) $((y + height + margin / 2)) false "$out" >/dev/null ||
    chime_die "the shell took no screenshot"
echo "$out"
