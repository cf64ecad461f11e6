#!/usr/bin/env bash
# Installs or removes Chime's files: scripts/install.sh install|uninstall|list
#
# The one list of what Chime installs; `make install`, `make uninstall` and `make deb`
# all go through it, so uninstall removes exactly what install wrote.
#
# Environment (the Makefile sets these):
#   PREFIX      where to install (default /usr/local)
#   DESTDIR     staging root prepended to every path (packaging, tests)
#   BIN_DIR     the release build's chime and chimed, and its locale/ (scripts/locale.sh)
#   GEN_DIR     generated man pages and completions
#   STRIP       when set, the installed chime and chimed are stripped (make install-strip):
#               the release build keeps its debugging symbols, 120 MB against 80 MB
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=${PREFIX:-/usr/local}
PREFIX=${PREFIX%/}
DESTDIR=${DESTDIR:-}
DESTDIR=${DESTDIR%/}
BIN_DIR=${BIN_DIR:-$root/.build/release}
GEN_DIR=${GEN_DIR:-$root/.build/chime-generated}

die() {
    echo "${0##*/}: $*" >&2
    exit 1
}

case $PREFIX in
    /*) ;;
    *) die "PREFIX must be an absolute path, not '$PREFIX'." ;;
esac

# Where each kind of file goes depends on who reads it: systemd, the bus, the session
# and the shells each search their own fixed places, and a prefix in the home folder
# has its own (XDG_DATA_HOME and XDG_CONFIG_HOME defaults).
home=${HOME:-}
if [[ -n $home && $PREFIX == "$home/.local" ]]; then
    unit_dir=$PREFIX/share/systemd/user
    autostart_dir=$home/.config/autostart
else
    unit_dir=$PREFIX/lib/systemd/user
    # XDG_CONFIG_DIRS defaults to /etc/xdg only, so the system prefixes use it; any
    # other prefix keeps its entry under itself, as autotools' sysconfdir would.
    case $PREFIX in
        /usr | /usr/local) autostart_dir=/etc/xdg/autostart ;;
        *) autostart_dir=$PREFIX/etc/xdg/autostart ;;
    esac
fi
# GeoClue reads its drop-ins from /etc/geoclue/conf.d only; other prefixes keep the file
# under themselves, to be copied there by hand.
case $PREFIX in
    /usr | /usr/local) geoclue_dir=/etc/geoclue/conf.d ;;
    *) geoclue_dir=$PREFIX/etc/geoclue/conf.d ;;
esac
# Debian's zsh searches vendor-completions for packaged files, site-functions for
# local ones.
if [[ $PREFIX == /usr ]]; then
    zsh_dir=$PREFIX/share/zsh/vendor-completions
else
    zsh_dir=$PREFIX/share/zsh/site-functions
fi
bindir=$PREFIX/bin

# One line per installed file: MODE SOURCE DESTINATION. A source ending in .in has
# @BINDIR@ and @CHIMED@ replaced.
manifest() {
    cat <<EOF
0755 $BIN_DIR/chime $bindir/chime
0755 $BIN_DIR/chimed $bindir/chimed
0644 $root/packaging/systemd/chimed.service.in $unit_dir/chimed.service
0644 $root/packaging/autostart/chimed.desktop.in $autostart_dir/chimed.desktop
0644 $root/packaging/applications/io.github.chime.Chime.desktop.in $PREFIX/share/applications/io.github.chime.Chime.desktop
0644 $root/packaging/geoclue/90-chime.conf $geoclue_dir/90-chime.conf
0644 $root/dbus/io.github.chime.Chime.service.in $PREFIX/share/dbus-1/services/io.github.chime.Chime.service
0644 $root/dbus/io.github.chime.Scheduler1.xml $PREFIX/share/dbus-1/interfaces/io.github.chime.Scheduler1.xml
0644 $GEN_DIR/man/chime.1 $PREFIX/share/man/man1/chime.1
0644 $GEN_DIR/man/chimed.1 $PREFIX/share/man/man1/chimed.1
0644 $GEN_DIR/completions/chime.bash $PREFIX/share/bash-completion/completions/chime
0644 $GEN_DIR/completions/_chime $zsh_dir/_chime
0644 $GEN_DIR/completions/chime.fish $PREFIX/share/fish/vendor_completions.d/chime.fish
EOF
    # Chime's translations, one per po/LANG.po, compiled by make release.
    local po lang
    for po in "$root"/po/*.po; do
        lang=$(basename "$po" .po)
        echo "0644 $BIN_DIR/locale/$lang/LC_MESSAGES/chime.mo $PREFIX/share/locale/$lang/LC_MESSAGES/chime.mo"
    done
}

# The deepest existing folder on the way to $1.
existing_parent() {
    local dir=$1
    while [[ ! -e $dir ]]; do dir=$(dirname "$dir"); done
    echo "$dir"
}

check_sources() {
    local mode source target
    while read -r mode source target; do
        [[ -f $source ]] || die "$source is missing; run 'make release' first (or 'make install', which builds it)."
    done < <(manifest)
    # A library the dynamic loader cannot find would stop chimed at every login with a
    # message only the journal sees; say it now instead.
    local binary missing
    for binary in "$BIN_DIR/chime" "$BIN_DIR/chimed"; do
        # ldd fails on a static binary (the release chime), which needs nothing.
        missing=$({ ldd "$binary" 2>/dev/null || true; } | awk '/not found/ {print $1}' | paste -sd ' ' -)
        [[ -z $missing ]] || die "${binary##*/} needs $missing, which this system does not have; install the runtime libraries (Debian: libsqlite3-0)."
    done
}

# Refuses before writing anything, so a failed install leaves nothing half done.
check_writable() {
    local mode source target dir
    while read -r mode source target; do
        dir=$(existing_parent "$DESTDIR$(dirname "$target")")
        if [[ ! -d $dir || ! -w $dir ]]; then
            die "cannot write to $dir; install as root (sudo make install) or into a folder of yours (make install PREFIX=\$HOME/.local)."
        fi
    done < <(manifest)
}

install_files() {
    check_sources
    check_writable
    local mode source target name
    # Global: the EXIT trap runs after this function's locals are gone.
    filled=$(mktemp)
    stripped=$(mktemp -d)
    trap 'rm -rf "$filled" "$stripped"' EXIT
    # Stripped copies are made before anything is written, so that a strip that fails
    # (binutils missing) leaves nothing half installed.
    if [[ -n ${STRIP:-} ]]; then
        for name in chime chimed; do
            strip -o "$stripped/$name" "$BIN_DIR/$name" 2>/dev/null ||
                die "cannot strip $BIN_DIR/$name (is binutils installed?); nothing was installed."
        done
    fi
    while read -r mode source target; do
        if [[ $source == *.in ]]; then
            sed -e "s|@BINDIR@|$bindir|g" -e "s|@CHIMED@|$bindir/chimed|g" "$source" >"$filled"
            source=$filled
        elif [[ $target == */bash-completion/completions/* ]]; then
            # bash-completion sources the file, never runs it: the #!/bin/bash line
            # swift-argument-parser starts it with says otherwise (lintian warns of it).
            sed '1{/^#!/d}' "$source" >"$filled"
            source=$filled
        elif [[ -n ${STRIP:-} && ( $target == "$bindir/chime" || $target == "$bindir/chimed" ) ]]; then
            source=$stripped/${target##*/}
        fi
        install -D -m "$mode" "$source" "$DESTDIR$target"
        echo "installed $DESTDIR$target"
    done < <(manifest)
}

uninstall_files() {
    local mode source target
    while read -r mode source target; do
        if [[ -e $DESTDIR$target || -L $DESTDIR$target ]]; then
            rm -f "$DESTDIR$target" || die "cannot remove $DESTDIR$target; uninstall as the user who installed (sudo make uninstall)."
            echo "removed $DESTDIR$target"
        fi
    done < <(manifest)
}

case ${1:-} in
    install) install_files ;;
    uninstall) uninstall_files ;;
    list) manifest | awk '{print $3}' ;;
    *) die "usage: ${0##*/} install|uninstall|list" ;;
esac
