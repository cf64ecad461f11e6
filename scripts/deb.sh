#!/usr/bin/env bash
# Builds the Debian package from the release build (make deb): the files of
# scripts/install.sh under /usr, with Depends worked out from what the binaries link.
# Prints the package's path.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN_DIR=${BIN_DIR:-$root/.build/release}
GEN_DIR=${GEN_DIR:-$root/.build/chime-generated}
OUT_DIR=${OUT_DIR:-$root/.build}

version=$("$BIN_DIR/chimed" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
work=$(mktemp -d "${TMPDIR:-/tmp}/chime-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
stage=$work/chime

# HOME is cleared so the per-user layout of install.sh never applies to a package.
HOME= PREFIX=/usr DESTDIR=$stage BIN_DIR=$BIN_DIR GEN_DIR=$GEN_DIR \
    "$root/scripts/install.sh" install >/dev/null
strip --strip-unneeded "$stage/usr/bin/chime" "$stage/usr/bin/chimed"
gzip -9n "$stage/usr/share/man/man1/chime.1" "$stage/usr/share/man/man1/chimed.1"
install -d "$stage/usr/share/doc/chime"
gzip -9nc "$root/README.md" >"$stage/usr/share/doc/chime/README.md.gz"

# dpkg-shlibdeps sees only what the binaries link: chimed opens libcanberra (sounds a
# server cannot play) itself when needed, so it is recommended below, not required;
# GIO comes with GLib. dpkg-shlibdeps reads debian/control from the current folder;
# it needs only the names in it.
mkdir -p "$work/debian"
printf 'Source: chime\n\nPackage: chime\nArchitecture: any\n' >"$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O -e chime/usr/bin/chimed -e chime/usr/bin/chime 2>/dev/null)
depends=${shlibs#shlibs:Depends=}
[[ -n $depends && $depends != "$shlibs" ]] || { echo "${0##*/}: dpkg-shlibdeps found no libraries" >&2; exit 1; }

install -d "$stage/DEBIAN"
cat >"$stage/DEBIAN/control" <<EOF
Package: chime
Version: $version
Architecture: $arch
Maintainer: Chime maintainers <chime@users.noreply.github.com>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: default-dbus-session-bus | dbus-session-bus, notification-daemon, libcanberra0
Section: utils
Priority: optional
Description: scheduled desktop notifications whose buttons keep working
 Chime brings the iOS local-notification model to the Linux desktop: a
 per-user daemon (chimed) keeps a schedule of notifications, fires each at
 its time through the desktop's notification server, and handles the
 buttons pressed on them (complete, remind later, run a command, open the
 app), even after the program that scheduled them has exited.
 .
 Programs use it over D-Bus (gdbus, dbus-send, any binding); people use the
 chime command.
EOF

# The user unit is enabled for every user, as debhelper does for packaged user units;
# a session started before the install gets chimed through D-Bus activation.
cat >"$stage/DEBIAN/postinst" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = configure ] && command -v systemctl >/dev/null 2>&1; then
    systemctl --global enable chimed.service >/dev/null 2>&1 || true
fi
EOF
cat >"$stage/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] && command -v systemctl >/dev/null 2>&1; then
    systemctl --global disable chimed.service >/dev/null 2>&1 || true
fi
EOF
chmod 0755 "$stage/DEBIAN/postinst" "$stage/DEBIAN/prerm"
# Files under /etc are the administrator's (Debian policy 10.7.2): kept on remove,
# deleted on purge. The entry's TryExec makes a kept one inert once chimed is gone.
(cd "$stage" && find etc -type f | sed 's|^|/|') >"$stage/DEBIAN/conffiles"

mkdir -p "$OUT_DIR"
deb=$OUT_DIR/chime_${version}_${arch}.deb
# gzip: every dpkg reads it, and it packs the static binaries in seconds where xz
# (dpkg-deb's default) takes minutes for a third less size.
dpkg-deb --root-owner-group -Zgzip -z6 --build "$stage" "$deb" >/dev/null
echo "$deb"
