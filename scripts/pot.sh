#!/usr/bin/env bash
# Prints the template of Chime's messages (po/chime.pot; make pot writes it there).
#
# xgettext knows no Swift, but read as C it finds Swift's plain string literals: the
# first argument of localized(...) and localizable(...) and the first two of
# pluralized(...), which take only literals (StaticString). References name the file without a line number, so moving
# code around does not change the template. The date line is dropped, so the same
# sources always give the same file (a test compares the two).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# Swift's multi-line literals (""") read as C are "unterminated strings": xgettext warns
# and goes on, and no msgid is in one.
find Sources -name '*.swift' | LC_ALL=C sort |
    xgettext --files-from=- --output=- --language=C --from-code=UTF-8 \
        --keyword= --keyword=localized --keyword=pluralized:1,2 --keyword=localizable \
        --add-comments=TRANSLATORS: --add-location=file --package-name=chime 2>/dev/null |
    sed '/^"POT-Creation-Date: /d'
