#!/usr/bin/env bash
# Builds the Debian package from the release build (make deb): dpkg-buildpackage and dh
# with debian/ (see debian/rules), run on a copy of debian/ in a temporary folder so that
# neither the checkout nor the folder above it gets their work files and .changes.
# Prints the package's path.
#
# Environment (the Makefile sets these):
#   BIN_DIR       the release build's chime and chimed
#   GEN_DIR       generated man pages and completions
#   RELEASE_DATE  the changelog's date (YYYY-MM-DD), the last commit's
#   OUT_DIR       where the package goes (default .build)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN_DIR=${BIN_DIR:-$root/.build/release}
GEN_DIR=${GEN_DIR:-$root/.build/chime-generated}
RELEASE_DATE=${RELEASE_DATE:-$(date +%F)}
OUT_DIR=${OUT_DIR:-$root/.build}

version=$("$BIN_DIR/chimed" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
work=$(mktemp -d "${TMPDIR:-/tmp}/chime-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
source=$work/chime
mkdir -p "$source"
cp -R "$root/debian" "$source/debian"
cp "$root/README.md" "$source/"

# The changelog is written here, not kept in debian/: the version lives in the code (chimed
# --version says it), and the date is the last commit's, so a rebuild of the same tree
# gives the same package (dpkg-buildpackage takes SOURCE_DATE_EPOCH from it).
maintainer=$(sed -n 's/^Maintainer: //p' "$root/debian/control")
cat >"$source/debian/changelog" <<EOF_CHANGELOG
chime ($version) unstable; urgency=medium

  * Packaged from the release build by make deb.

 -- $maintainer  $(LC_ALL=C date -R -d "$RELEASE_DATE")
EOF_CHANGELOG

log=$work/build.log
if ! (cd "$source" && CHIME_ROOT=$root BIN_DIR=$BIN_DIR GEN_DIR=$GEN_DIR \
        dpkg-buildpackage -b -us -uc) >"$log" 2>&1; then
    cat "$log" >&2
    echo "${0##*/}: dpkg-buildpackage failed" >&2
    exit 1
fi

deb=chime_${version}_${arch}.deb
# Debian's checks of a package, before it is put where dpkg -i would find it: an error or
# a warning fails make deb (--info says what each one means). An exception has its
# reason in debian/chime.lintian-overrides. One tag of those lintian shows only with
# --display-info remains, spelling-error-in-binary, on pieces of text that are not words:
# Swift keeps a short string in the instructions that load it, 8 bytes to an instruction
# ("placePre" and "sence"), and the Swift runtime linked in has a typo of its own
# ("matchign"). --allow-root: the package checked is the one just built here.
if ! lintian --allow-root --fail-on error,warning --info "$work/$deb" >&2; then
    echo "${0##*/}: lintian does not pass the package (above); it was not put in $OUT_DIR" >&2
    exit 1
fi

mkdir -p "$OUT_DIR"
mv "$work/$deb" "$OUT_DIR/$deb"
echo "$OUT_DIR/$deb"
