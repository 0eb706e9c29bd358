# shellcheck shell=bash
# Shared helpers for scripts/lib/install-*.sh. Source it, do not execute it.
#
#   ROOT        repository root (derived from this file's location)
#   CACHE_DIR   "$ROOT/.cache" (git-ignored; all project-local tools live here)
#   log MSG...          print one status line
#   joined ITEM...      "a, b, c"
#   die MSG...          print to stderr and exit 1
#   need_cmd CMD...     fail unless every CMD is on PATH
#   with_lock NAME      serialise concurrent installers (flock on .cache/locks/NAME)
#   unlock_fd FD        release a lock early (FD = $LOCK_FD after with_lock)
#   apt_install PKG...  install missing Debian packages (apt-get update at most once)
#   npm_local_install PKG VERSION   npm install PKG@VERSION into .cache/node

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE_DIR="$ROOT/.cache"
export ROOT CACHE_DIR

log() { printf '%s\n' "$*"; }
joined() { local out="" x; for x in "$@"; do out+="${out:+, }$x"; done; printf '%s' "$out"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

need_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 || die "required command not found: $c"
  done
}

# Take an exclusive lock, held until the script exits or `unlock_fd "$LOCK_FD"`.
with_lock() {
  mkdir -p "$CACHE_DIR/locks"
  exec {LOCK_FD}>"$CACHE_DIR/locks/$1.lock"
  flock "$LOCK_FD"
}
unlock_fd() { local fd="$1"; exec {fd}>&-; }

# Run as root, via sudo when needed.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root (or sudo) to run: $*"
  fi
}

# True if the Debian package is fully installed.
deb_installed() {
  dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

# apt-get update runs at most once per scripts run: a stamp in .cache younger
# than APT_UPDATE_MAX_AGE_MIN (default 60) minutes means "already updated".
APT_STAMP="$CACHE_DIR/apt-update.stamp"
_apt_update() {
  log "apt: apt-get update"
  mkdir -p "$CACHE_DIR"
  as_root apt-get update -o DPkg::Lock::Timeout=600 >"$CACHE_DIR/apt.log" 2>&1 \
    || { tail -n 20 "$CACHE_DIR/apt.log" >&2; die "apt-get update failed"; }
  touch "$APT_STAMP"
}
_apt_recently_updated() {
  [ -n "$(find "$APT_STAMP" -mmin "-${APT_UPDATE_MAX_AGE_MIN:-60}" 2>/dev/null)" ]
}

# apt_install PKG...   Set APT_NO_START=1 to keep services from starting.
apt_install() {
  local missing=() p
  for p in "$@"; do deb_installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && return 0
  need_cmd apt-get dpkg
  with_lock apt
  local apt_lock_fd="$LOCK_FD"
  local updated=0
  if ! _apt_recently_updated; then _apt_update; updated=1; fi
  local policy_tmp=0
  if [ "${APT_NO_START:-0}" = 1 ] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | as_root tee /usr/sbin/policy-rc.d >/dev/null
    as_root chmod 755 /usr/sbin/policy-rc.d
    policy_tmp=1
  fi
  log "apt: installing ${missing[*]}"
  local rc=0
  _apt_get_install "${missing[@]}" || rc=$?
  if [ "$rc" -ne 0 ] && [ "$updated" -eq 0 ]; then
    _apt_update   # stamp was fresh but the lists were not good enough; retry once
    rc=0; _apt_get_install "${missing[@]}" || rc=$?
  fi
  [ "$policy_tmp" -eq 1 ] && as_root rm -f /usr/sbin/policy-rc.d
  unlock_fd "$apt_lock_fd"
  [ "$rc" -eq 0 ] || die "apt-get install failed: ${missing[*]}"
}
_apt_get_install() {
  mkdir -p "$CACHE_DIR"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y \
    --no-install-recommends -o DPkg::Lock::Timeout=600 "$@" >>"$CACHE_DIR/apt.log" 2>&1 \
    || { tail -n 20 "$CACHE_DIR/apt.log" >&2; return 1; }
}

# npm_local_install PKG VERSION: exact version into $CACHE_DIR/node
# (binaries end up in $CACHE_DIR/node/node_modules/.bin). Returns 0 and prints
# nothing when that version is already there; sets NPM_INSTALLED=1 otherwise.
NODE_PREFIX="$CACHE_DIR/node"
# shellcheck disable=SC2034  # read by the install scripts
NPM_INSTALLED=0
npm_local_version() {
  local pj="$NODE_PREFIX/node_modules/$1/package.json"
  [ -f "$pj" ] && node -p "require(process.argv[1]).version" "$pj" 2>/dev/null
}
npm_local_install() {
  local pkg="$1" ver="$2"
  NPM_INSTALLED=0
  [ "$(npm_local_version "$pkg" || true)" = "$ver" ] && return 0
  need_cmd node npm
  with_lock node
  local node_lock_fd="$LOCK_FD"
  if [ "$(npm_local_version "$pkg" || true)" != "$ver" ]; then
    mkdir -p "$NODE_PREFIX"
    [ -f "$NODE_PREFIX/package.json" ] || printf '{ "private": true }\n' >"$NODE_PREFIX/package.json"
    npm install --prefix "$NODE_PREFIX" --save-exact --no-audit --no-fund \
      --loglevel=error "$pkg@$ver" >/dev/null
    [ "$(npm_local_version "$pkg" || true)" = "$ver" ] || die "npm install $pkg@$ver failed"
    # shellcheck disable=SC2034
    NPM_INSTALLED=1
  fi
  # Released here, not at exit: a second call from the same shell would
  # otherwise wait forever on its own lock (flock is per open file).
  unlock_fd "$node_lock_fd"
}
