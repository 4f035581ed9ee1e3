# Shared by site/build.sh and site/pdf/build.sh (sourced, never run): both run one mystmd build
# (`jupyter-book build --html` / `--typst`) in a process group of its own and must leave nothing behind.
#
# The sourcing script sets `repo` (the checkout) and `log` (its message function) first, then calls:
#   site_lock      one mystmd build at a time in this checkout (both write mystmd's _build folders;
#                  the browser test may build while `make site` runs): flock on _build/.site-build.lock
#   site_tools     sets `jb` (JUPYTER_BOOK, default .venv/bin/jupyter-book, else the one on PATH), `py`
#                  (PYTHON, default .venv/bin/python, else python3) and `jb_env`, the `env` prefix of the
#                  build command (below); fails when jupyter-book is missing
#   site_buildlog  sets `buildlog` (a temporary file for the build's output, named after $1) and the EXIT
#                  trap that ends the process group `pgid` (TERM, up to 3 s, then KILL; mystmd can leave
#                  the theme's server running when a build fails) and removes the log
# and starts the build as `setsid "${jb_env[@]}" "$jb" ... &` followed by `pgid=$!`.
#
# `jb_env` keeps the build off the network. Every mystmd session asks the npm registry for mystmd's latest
# version (`latestVersion("mystmd")` in the session's constructor, jupyter-book 2.1.7's bundled myst-cli; the
# answer only feeds an upgrade notice, and a failure is ignored). The registry is found through npm's
# configuration (`registry-url`, which reads `npm_config_registry`), so the build gets a local address
# where nothing listens and the question fails at once, without leaving the machine.

site_lock() {
  mkdir -p "$repo/_build"
  exec 8>"$repo/_build/.site-build.lock"
  flock 8
}

site_tools() {
  jb="${JUPYTER_BOOK:-$repo/.venv/bin/jupyter-book}"
  [ -x "$jb" ] || jb="$(command -v jupyter-book || true)"
  [ -n "$jb" ] || { log "ERROR: jupyter-book not found (pip install -e '.[book]')"; return 1; }
  py="${PYTHON:-$repo/.venv/bin/python}"
  [ -x "$py" ] || py="$(command -v python3)"
  jb_env=(env "npm_config_registry=http://127.0.0.1:9/")
}

site_finish() {
  trap '' INT TERM # the clean-up itself is not interrupted
  if [ -n "${pgid:-}" ]; then
    kill -TERM -- "-$pgid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 -- "-$pgid" 2>/dev/null || break; sleep 0.3; done
    kill -KILL -- "-$pgid" 2>/dev/null || true
  fi
  rm -f "${buildlog:-}"
}

site_buildlog() {
  buildlog="$(mktemp -t "rebalance-$1.XXXXXX")"
  pgid=""
  trap site_finish EXIT
  trap 'log "interrupted"; exit 130' INT TERM
}
