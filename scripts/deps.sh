#!/usr/bin/env bash
# Installs the Debian packages a task needs: scripts/deps.sh [--check] GROUP...
# Groups: build, deb, test, servers, bench, demo, screenshot. Only missing packages are installed, so a
# machine that already has everything never touches apt (or the network). With --check it
# installs nothing: it names what is missing and the command that installs it (make
# install builds with it, and never runs sudo or apt by itself).
set -euo pipefail

usage() {
    echo "usage: ${0##*/} [--check] GROUP... (groups: build deb test servers bench demo screenshot)" >&2
    exit 2
}

# dbus-daemon and dbus-bin are split out of "dbus" in Debian 12 and later;
# both exist in bookworm, and are what provide /usr/bin/dbus-daemon and
# /usr/bin/dbus-send without pulling in the system bus service.
# The store links the system SQLite. gettext: msgfmt compiles the translations (po/), xgettext
# makes their template (make pot). libical: chime import and chime export read and write .ics files.
# libicu-dev brings the distribution's ICU, which chimed opens for the calendars it does not count itself.
build_pkgs=(libdbus-1-dev libsqlite3-dev pkg-config gettext libical-dev libicu-dev libcurl4-openssl-dev libxml2-dev)
# libglib2.0-bin: gdbus, and with it GLib, which chimed opens to read a config.
bus_pkgs=(dbus-daemon dbus-bin libglib2.0-bin)
# debhelper and dpkg-dev: dpkg-buildpackage and dh package the release build (debian/);
# lintian checks the package against Debian's policy (make deb fails on its warnings).
deb_pkgs=("${build_pkgs[@]}" debhelper dpkg-dev lintian)
# desktop-file-utils and groff-base check the autostart entry and the man pages.
# libcanberra0: chimed opens it when a server cannot play sounds (SoundTests).
# locales and libglib2.0-data: a config test reads GLib's messages in German (the
# de_DE.UTF-8 locale is generated below).
# python3-gi and gir1.2-glib-2.0: the app in front of docs/examples and its test fakes (Gio).
# python3-convertdate: the independent Hebrew calendar the calendar tests compare with.
# python3-dateutil: its rrule is the second implementation repeats are checked against (RRuleTests).
# python3-venv: make test puts python-icalendar, the alarms' oracle, in .build/oracle.
# dbus-x11: the dbus-launch that libdbus's X11 autolaunch runs, which chime must never start.
test_pkgs=("${deb_pkgs[@]}" "${bus_pkgs[@]}" libcanberra0 python3-dbusmock dunst xvfb xdotool x11-utils
           desktop-file-utils groff-base locales libglib2.0-data python3-gi gir1.2-glib-2.0
           python3-convertdate python3-dateutil python3-venv dbus-x11)
# The calendar clients chimed is tested with (CalendarClientTests): khal and todoman write the
# vdir folders it follows, vdirsyncer fills one from Radicale, a CalDAV server on 127.0.0.1;
# curl puts and deletes the server's items as another device would; nginx in front of
# Radicale offers HTTP/2 over TLS (Debian's package does not start it where policy-rc.d forbids).
calendar_pkgs=(khal todoman vdirsyncer radicale curl openssl gnome-keyring libsecret-tools xandikos nginx-light)
test_pkgs+=("${calendar_pkgs[@]}")
# The notification servers of the matrix (ServerMatrixTests) beyond dunst: make test runs
# them all, so they are test packages too.
# mako runs in a headless sway; GNOME Shell 43's notification name is owned by a gjs
# service Debian's gnome-shell does not pull in; the GTK servers' buttons are found
# through AT-SPI, lxqt's through xwininfo (x11-utils).
server_pkgs=(mako-notifier sway gnome-shell gjs
             notification-daemon xfce4-notifyd at-spi2-core gir1.2-atspi-2.0
             lxqt-notificationd x11-utils)
test_pkgs+=("${server_pkgs[@]}")
# KDE Plasma's plasmashell: some 360 packages (about 5 minutes), so only the servers group
# installs it, not test; xprop (x11-utils) points Qt's AT-SPI bridge at a private a11y bus.
plasma_pkgs=(plasma-workspace plasma-desktop kactivitymanagerd x11-utils at-spi2-core gir1.2-atspi-2.0)
# at: the peer the scheduling throughput is compared with.
bench_pkgs=("${test_pkgs[@]}" libnotify-bin hyperfine at)
demo_pkgs=("${build_pkgs[@]}" "${bus_pkgs[@]}" dunst xvfb xdotool libnotify-bin)
# The picture is GNOME Shell's own screenshot of its banner: the shell, its gjs notification
# service, and python-dbusmock for the logind mutter needs.
screenshot_pkgs=("${build_pkgs[@]}" "${bus_pkgs[@]}" gnome-shell gjs python3-dbusmock)

check_only=false
if [[ ${1:-} == --check ]]; then
    check_only=true
    shift
fi
[[ $# -gt 0 ]] || usage

wanted=()
for group in "$@"; do
    case $group in
        build) wanted+=("${build_pkgs[@]}") ;;
        deb)   wanted+=("${deb_pkgs[@]}") ;;
        test)  wanted+=("${test_pkgs[@]}") ;;
        servers) wanted+=("${test_pkgs[@]}" "${server_pkgs[@]}" "${plasma_pkgs[@]}") ;;
        bench) wanted+=("${bench_pkgs[@]}") ;;
        demo)  wanted+=("${demo_pkgs[@]}") ;;
        screenshot) wanted+=("${screenshot_pkgs[@]}") ;;
        *) echo "${0##*/}: unknown group '$group'" >&2; usage ;;
    esac
done

missing=()
for pkg in "${wanted[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ $status != "install ok installed" ]]; then
        case " ${missing[*]} " in
            *" $pkg "*) ;;
            *) missing+=("$pkg") ;;
        esac
    fi
done

# The locale the tests read GLib's German messages in, generated once.
wants_locale=false
[[ " ${wanted[*]} " == *" libglib2.0-data "* ]] && ! locale -a 2>/dev/null | grep -qix 'de_DE.utf-\?8' && wants_locale=true

[[ ${#missing[@]} -eq 0 ]] && ! $wants_locale && exit 0

if $check_only; then
    install="apt-get install ${missing[*]}"
    [[ ${#missing[@]} -eq 0 ]] && install="localedef -i de_DE -f UTF-8 de_DE.UTF-8"
    [[ $(id -u) -eq 0 ]] || install="sudo $install"
    echo "${0##*/}: missing ${missing[*]:-the de_DE.UTF-8 locale}; install with: $install" >&2
    exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
    as_root=()
elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
else
    echo "${0##*/}: missing ${missing[*]:-the de_DE.UTF-8 locale}, and installing needs root or sudo" >&2
    exit 1
fi

if ((${#missing[@]} > 0)); then
    echo "Installing: ${missing[*]}"
    # apt's own output goes to a log so success stays quiet; a failure shows it.
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    if ! "${as_root[@]}" apt-get update >"$log" 2>&1 ||
       ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
        cat "$log" >&2
        echo "${0##*/}: installing ${missing[*]} failed" >&2
        exit 1
    fi
fi

if [[ " ${wanted[*]} " == *" libglib2.0-data "* ]] && ! locale -a 2>/dev/null | grep -qix 'de_DE.utf-\?8'; then
    echo "Generating the de_DE.UTF-8 locale"
    "${as_root[@]}" localedef -i de_DE -f UTF-8 de_DE.UTF-8 ||
        { echo "${0##*/}: localedef -i de_DE -f UTF-8 de_DE.UTF-8 failed" >&2; exit 1; }
fi
