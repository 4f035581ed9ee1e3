#!/usr/bin/env bash
# Offline PDF edition of the whole book: myst.yml's typst export (`exports: - id: book-pdf`) into
# _build/exports/rebalance.pdf, following myst.yml's table of contents.
#
# mystmd (`jupyter-book build --typst`) writes the Typst sources with the project's template
# (site/pdf/template) and runs `typst compile`; the `typst` it finds is site/pdf/bin/typst, the compiler
# of PyPI's typst wheel (site/pdf/typst_cli.py), which takes Typst packages from site/pdf/packages only.
# REBALANCE_PRINT=1 makes the print plugin (site/pdf/print-plugin.mjs) show the answer cells the site
# hides and leave out the plumbing cells and the widgets' text reprs.  The build runs in its own process group, ended whatever happens, and holds the same lock as
# site/build.sh (both write mystmd's _build folders; the shared steps are in site/lib.sh).  When a built site is there (_build/html), the PDF
# is copied into it as rebalance.pdf.
#
# Usage: site/pdf/build.sh
# Env:   JUPYTER_BOOK  the jupyter-book (or myst) executable (default: .venv/bin/jupyter-book)
#        PYTHON        the Python with the typst wheel (default: .venv/bin/python)
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
log() { printf '[pdf/build] %s\n' "$*"; }
# shellcheck source=site/lib.sh
. "$repo/site/lib.sh"
pdf="$repo/_build/exports/rebalance.pdf"
kept_log="$repo/_build/exports/rebalance.log" # mystmd's output of the last build (tests/book read its warnings)

site_lock
site_tools || exit 1
"$py" -c 'import typst' 2>/dev/null || { log "ERROR: $py has no typst module (pip install -c constraints.txt -e '.[book]')"; exit 1; }
for font in dejavu wqy; do [ -d "/usr/share/fonts/truetype/$font" ] || log "warning: /usr/share/fonts/truetype/$font missing (make pdf-tools installs it): labels or the glossary's Chinese terms fall back to other fonts"; done

site_buildlog pdf-build

# The API reference page of the toc is generated from the package's docstrings (as for the site); mystmd needs
# every page of the toc, although the PDF leaves this one out (site/pdf/typst_cli.py, SITE_ONLY).
"$py" "$repo/site/api_reference.py" "$repo/api.md" >/dev/null || { log "ERROR: site/api_reference.py failed"; exit 1; }

rm -f "$pdf" "$kept_log"
started=$(date +%s%N)
PATH="$repo/site/pdf/bin:$PATH" REBALANCE_PYTHON="$py" REBALANCE_PRINT=1 \
  setsid "${jb_env[@]}" "$jb" build --typst </dev/null >"$buildlog" 2>&1 &
pgid=$!
wait "$pgid"
rc=$?
ms=$(( ($(date +%s%N) - started) / 1000000 ))
elapsed="$((ms / 1000)).$(( (ms % 1000) / 100 ))"
grep -v "^📖 Built " "$buildlog" | sed 's/^/    /'
cp "$buildlog" "$kept_log"

if [ "$rc" -ne 0 ] || [ ! -s "$pdf" ]; then
  log "ERROR: $jb build --typst failed (status $rc after ${elapsed} s); no $pdf"
  exit 1
fi
if grep -q '^typst compile .*:' "$buildlog"; then
  log "ERROR: typst reported errors (above)"
  exit 1
fi
errors="$(grep -c '⛔️' "$buildlog" || true)"
warnings="$(grep -c '⚠️' "$buildlog" || true)"
if [ "$errors" != 0 ] || [ "$warnings" != 0 ]; then
  log "mystmd reported $errors error(s) and $warnings warning(s) (lines marked ⛔️ / ⚠️ above)"
fi
size="$(du -h "$pdf" | cut -f1)"
pages="$("$py" -c 'import sys, pypdf; print(len(pypdf.PdfReader(sys.argv[1]).pages))' "$pdf" 2>/dev/null || echo '?')"
log "built $pdf: $pages pages, $size, in ${elapsed} s"
if [ -d "$repo/_build/html" ]; then
  cp "$pdf" "$repo/_build/html/rebalance.pdf"
  log "copied into the site: _build/html/rebalance.pdf"
fi
