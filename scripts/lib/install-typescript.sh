#!/usr/bin/env bash
# TypeScript compiler into .cache/node (.cache/node/node_modules/.bin/tsc).
# Usage: install-typescript.sh [VERSION]   (default below, or $TYPESCRIPT_VERSION)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

TYPESCRIPT_VERSION="${1:-${TYPESCRIPT_VERSION:-7.0.2}}"
npm_local_install typescript "$TYPESCRIPT_VERSION"
if [ "$NPM_INSTALLED" = 1 ]; then
  "$NODE_PREFIX/node_modules/.bin/tsc" --version >/dev/null || die "tsc does not run"
  log "ok: installed typescript $TYPESCRIPT_VERSION"
else
  log "ok: typescript $TYPESCRIPT_VERSION already installed"
fi
