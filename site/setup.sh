#!/usr/bin/env bash
# Installs and builds the book's site template (site/theme) so that `myst build --html` runs offline.
#
# Third-party code comes from the npm registry at set-up time and is never committed:
#   1. thebe-core 0.5.0 (its prebuilt browser bundle) is unpacked into theme/.cache/vendor with its
#      dependency list dropped, and an empty thebe-lite stands in (see theme/scripts/vendor.cjs);
#   2. `npm install` with the committed package-lock.json (not `npm ci`: the lockfile lacks rollup's
#      per-platform optional packages, which `npm install` adds without changing the lockfile);
#   3. `npm run build`: Tailwind CSS, the Remix app (theme/build, theme/public/build) and the local
#      assets (KaTeX CSS and fonts, thebe-core bundle, favicon) in theme/public.
# Idempotent: each step is skipped when its inputs have not changed (hashes in theme/.cache).
# Steps 2 and 3 are also kept in a user-level cache, ${REBALANCE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/rebalance}/
# site-theme, by the hash of their inputs (as pip's, npm's and Maven's caches are kept): in a fresh clone with warm
# caches node_modules is a link to the cached install (never written through: a changed lockfile is another hash)
# and the built theme is copied back, instead of 2-3 minutes of npm install and 1-3 of building.  REBALANCE_CACHE=
# (empty) turns that cache off.
#
# Usage: site/setup.sh [--force]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
theme="$here/theme"
force=0
case "${1:-}" in
  --force) force=1 ;;
  "") ;;
  *) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

log() { printf '[site/setup] %s\n' "$*"; }
die() { printf '[site/setup] ERROR: %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null || die "node not found (Node.js >= 18 is needed; Debian: apt-get install nodejs npm)"
command -v npm >/dev/null || die "npm not found (Debian: apt-get install npm)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[ "$node_major" -ge 18 ] || die "Node.js >= 18 needed, found $(node --version)"

cd "$theme"
mkdir -p .cache
# One set-up at a time (a test run and a build may both call this).
exec 9>.cache/setup.lock
flock 9

hash_of() { # hash of the named files/directories (contents and names) plus the Node version
  { node --version; find "$@" -type f ! -path 'app/styles/*' -print0 | sort -z | xargs -0 sha256sum; } |
    sha256sum | cut -c1-16
}
stamp_ok() { [ "$force" = 0 ] && [ -f ".cache/$1.stamp" ] && [ "$(cat ".cache/$1.stamp")" = "$2" ]; }

export BROWSERSLIST_IGNORE_OLD_DATA=1
started=$SECONDS

# 1. local packages prepared from the registry
vendor_hash="$(hash_of scripts/vendor.cjs)"
if stamp_ok vendor "$vendor_hash" && [ -f .cache/vendor/thebe-core/dist/lib/thebe-core.min.js ]; then
  log "vendor packages up to date"
else
  log "fetching thebe-core 0.5.0 from the npm registry"
  (cd .cache && npm pack thebe-core@0.5.0 --silent >/dev/null)
  node scripts/vendor.cjs .cache/thebe-core-0.5.0.tgz
  echo "$vendor_hash" > .cache/vendor.stamp
  rm -f .cache/install.stamp
fi

cache="${REBALANCE_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/rebalance}"
[ -z "$cache" ] || cache="$cache/site-theme"
# store DIR NAME: copy DIR into the cache as NAME (whole or not at all)
store() {
  [ -n "$cache" ] || return 0
  mkdir -p "$cache" && rm -rf "$cache/$2.part" && cp -a "$1" "$cache/$2.part" && rm -rf "$cache/$2" &&
    mv "$cache/$2.part" "$cache/$2" || log "WARNING: could not keep $1 in $cache (not needed; the next set-up rebuilds)"
}

# 2. npm install from the committed lockfile
install_hash="$(hash_of package.json package-lock.json)"
# (a folder named node_modules inside the hashed one: Node resolves a package's own requires from its real path,
# looking for folders of that name)
cached_modules="$cache/modules-$install_hash/node_modules"
if stamp_ok install "$install_hash" && [ -d node_modules/@myst-theme/site ]; then
  log "node_modules up to date"
elif [ "$force" = 0 ] && [ -n "$cache" ] && [ -d "$cached_modules/@myst-theme/site" ]; then
  # a link to another hash's install, or an old directory, goes; the cache is never deleted through the link
  if [ -L node_modules ]; then rm node_modules; else rm -rf node_modules; fi
  ln -s "$cached_modules" node_modules
  log "node_modules: the cached install of this lockfile ($cached_modules)"
  echo "$install_hash" > .cache/install.stamp
  rm -f .cache/build.stamp
else
  if [ -L node_modules ]; then rm node_modules; fi
  log "npm install (first time: 1-2 minutes, ~800 MB in site/theme/node_modules)"
  cp package-lock.json .cache/package-lock.before.json
  t0=$SECONDS
  npm install --no-audit --no-fund --loglevel=error
  if ! cmp -s package-lock.json .cache/package-lock.before.json; then
    log "WARNING: npm install changed package-lock.json; commit it only if the change was intended"
  fi
  log "npm install took $((SECONDS - t0)) s"
  # the vendored packages (file: dependencies) are links into .cache/vendor, which the cached copy must hold itself
  if [ -n "$cache" ]; then
    tmp="$(mktemp -d)"
    [ -d "$tmp" ] && cp -a node_modules "$tmp/node_modules" &&
      for link in thebe-core thebe-lite; do
        rm "$tmp/node_modules/$link" && cp -aL "node_modules/$link" "$tmp/node_modules/$link"
      done && store "$tmp" "modules-$install_hash"
    [ -d "$tmp" ] && rm -rf "$tmp"
  fi
  echo "$install_hash" > .cache/install.stamp
  rm -f .cache/build.stamp
fi

# 3. build the app and copy the local assets
build_hash="$(hash_of package-lock.json template.yml remix.config.js tailwind.config.js tsconfig.json styles app scripts)"
cached_build="$cache/build-$build_hash"
if stamp_ok build "$build_hash" && [ -f build/index.js ] && [ -f public/favicon.ico ]; then
  log "theme build up to date"
elif [ "$force" = 0 ] && [ -n "$cache" ] && [ -f "$cached_build/build/index.js" ]; then
  rm -rf build public app/styles
  cp -a "$cached_build/build" "$cached_build/public" .
  mkdir -p app && cp -a "$cached_build/styles" app/styles
  log "theme: the cached build of these sources ($cached_build)"
  echo "$build_hash" > .cache/build.stamp
else
  log "building the theme (Tailwind + Remix, ~30 s)"
  t0=$SECONDS
  rm -rf build public/build
  npm run --silent build
  log "theme build took $((SECONDS - t0)) s"
  if [ -n "$cache" ]; then
    tmp="$(mktemp -d)"
    [ -d "$tmp" ] && cp -a build public "$tmp/" && cp -a app/styles "$tmp/styles" && store "$tmp" "build-$build_hash"
    [ -d "$tmp" ] && rm -rf "$tmp"
  fi
  echo "$build_hash" > .cache/build.stamp
fi

log "ready in $((SECONDS - started)) s: $theme"
