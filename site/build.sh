#!/usr/bin/env bash
# Offline HTML build of the whole book (myst.yml) into _build/html.
#
# Runs site/setup.sh (quick when the theme is already built), then `jupyter-book build --html` in its
# own process group, which is ended whatever happens: mystmd starts the theme's server (remix-serve)
# and can leave it running when a build fails.  Fails when the build fails or a page is missing.
#
# Usage: site/build.sh [extra jupyter-book build options, e.g. --strict]
# Env:   JUPYTER_BOOK  the jupyter-book (or myst) executable (default: .venv/bin/jupyter-book)
#        PYTHON        the Python that writes the API page (default: .venv/bin/python)
#        BASE_URL      URL prefix the site will be served under (default: none, served at /)
set -uo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
log() { printf '[site/build] %s\n' "$*"; }
# shellcheck source=site/lib.sh
. "$repo/site/lib.sh"

site_lock
bash site/setup.sh || { log "ERROR: site/setup.sh failed"; exit 1; }
site_tools || exit 1
site_buildlog site-build

# The API reference page is generated from the package's docstrings at every build (never committed).
"$py" "$repo/site/api_reference.py" "$repo/api.md" || { log "ERROR: site/api_reference.py failed"; exit 1; }

started=$SECONDS
# setsid: a new session and process group (the background job is not a group leader, so setsid
# does not fork and $! is the group id); everything mystmd starts inherits it.
setsid "${jb_env[@]}" "$jb" build --html "$@" >"$buildlog" 2>&1 </dev/null &
pgid=$!
tail --pid="$pgid" -n +1 -f "$buildlog" &
tailpid=$!
wait "$pgid"
rc=$?
wait "$tailpid" 2>/dev/null
elapsed=$((SECONDS - started))

if [ "$rc" -ne 0 ]; then
  log "ERROR: $jb build --html exited with status $rc after ${elapsed} s"
  exit 1
fi
if grep -q 'Error fetching' "$buildlog"; then
  log "ERROR: the theme server failed to render some pages:"
  grep 'Error fetching' "$buildlog" | sed 's/^/    /'
  exit 1
fi

# Every page of the table of contents must have been written.
html="$repo/_build/html"
missing="$(python3 - "$html" <<'PY'
import json, pathlib, sys
html = pathlib.Path(sys.argv[1])
try:
    config = json.loads((html / "config.json").read_text())
except (OSError, ValueError) as exc:
    print(f"config.json ({exc})")
    sys.exit()
wanted = ["index.html"]
for project in config.get("projects", []):
    prefix = f"{project['slug']}/" if project.get("slug") else ""
    wanted += [f"{prefix}{p['slug'].replace('.', '/')}/index.html" for p in project.get("pages", []) if "slug" in p]
for rel in wanted:
    f = html / rel
    if not f.is_file() or f.stat().st_size == 0:
        print(rel)
PY
)"
if [ -n "$missing" ]; then
  log "ERROR: pages missing from $html:"
  printf '    %s\n' $missing
  exit 1
fi

pages="$(find "$html" -name index.html | wc -l)"
size="$(du -sh "$html" | cut -f1)"
log "built $pages pages ($size) in ${elapsed} s into _build/html"
errors="$(grep -c '⛔️' "$buildlog" || true)"
warnings="$(grep -c '⚠️' "$buildlog" || true)"
if [ "$errors" != 0 ] || [ "$warnings" != 0 ]; then
  log "mystmd reported $errors error(s) and $warnings warning(s) (lines marked ⛔️ / ⚠️ above)"
fi
log "open it through a local web server (the pages use absolute /build/... links, so file:// shows them unstyled):"
log "    python -m http.server -d _build/html 8000   # then browse http://127.0.0.1:8000/"
log "entry page: _build/html/index.html"

# The PDF edition (make pdf builds it before the site): served at /rebalance.pdf, linked from the index page.
if [ -s "$repo/_build/exports/rebalance.pdf" ]; then
  cp "$repo/_build/exports/rebalance.pdf" "$html/rebalance.pdf"
  log "PDF edition: _build/html/rebalance.pdf"
fi
