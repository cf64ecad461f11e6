#!/usr/bin/env bash
# Compiles every translation in po/ for a build: scripts/locale.sh BIN_DIR writes
# BIN_DIR/locale/LANG/LC_MESSAGES/chime.mo, where the binaries in BIN_DIR look first
# (besides the installed places), so a build speaks its languages without make install.
# msgfmt --check refuses a translation whose format strings do not match the msgid's.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[[ $# -eq 1 ]] || { echo "usage: ${0##*/} BIN_DIR" >&2; exit 2; }
for po in "$root"/po/*.po; do
    lang=$(basename "$po" .po)
    mo=$1/locale/$lang/LC_MESSAGES/chime.mo
    [[ -f $mo && $mo -nt $po ]] && continue
    mkdir -p "$(dirname "$mo")"
    # A temporary name and a rename: tests running at once never read half a file.
    msgfmt --check --output-file="$mo.$$" "$po"
    mv "$mo.$$" "$mo"
done
