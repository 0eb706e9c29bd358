#!/usr/bin/env bash
# Project-local Python virtualenv with a list of packages.
# Usage: install-python-venv.sh NAME PKG...      e.g.  py 'maturin>=1.16,<1.17' pytest mypy
#   -> .cache/venv-NAME (python: $PYTHON or python3). Packages are pip-installed
#   only when the requirement list differs from the last successful install
#   (hash stored in .cache/venv-NAME/.acd-requirements).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -ge 1 ] || die "usage: $0 NAME [PKG...]"
NAME="$1"; shift
case "$NAME" in (*[!A-Za-z0-9_.-]*|'') die "bad venv name: $NAME";; esac
PY="${PYTHON:-python3}"
VENV="$CACHE_DIR/venv-$NAME"
MARKER="$VENV/.acd-requirements"

want="$(printf '%s\n' "$@" | LC_ALL=C sort -u | sha256sum | cut -d' ' -f1)"
venv_ok() { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c '' 2>/dev/null; }

if venv_ok && [ "$(cat "$MARKER" 2>/dev/null)" = "$want" ]; then
  log "ok: venv-$NAME already up to date"
  exit 0
fi

need_cmd "$PY"
with_lock "venv-$NAME"
if venv_ok && [ "$(cat "$MARKER" 2>/dev/null)" = "$want" ]; then
  log "ok: venv-$NAME already up to date"; exit 0
fi

created=""
if ! venv_ok; then
  # Debian's own /usr/bin/python3 needs python3-venv for ensurepip.
  if ! "$PY" -c 'import ensurepip' 2>/dev/null; then
    [ "$(command -v "$PY")" = /usr/bin/python3 ] || die "$PY lacks ensurepip (venv support)"
    apt_install "python3-venv" "python$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')-venv"
  fi
  rm -rf "$VENV"
  mkdir -p "$CACHE_DIR"
  "$PY" -m venv "$VENV"
  created="created, "
fi

if [ "$#" -gt 0 ]; then
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "$@"
fi
echo "$want" >"$MARKER"
log "ok: venv-$NAME ${created}installed: $*"
