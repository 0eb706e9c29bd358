#!/usr/bin/env bash
# Stoplight Prism (the OpenAPI mock server, npm @stoplight/prism-cli) into a
# prefix of its own, .cache/prism (.cache/prism/node_modules/.bin/prism), so
# its many dependencies never mix with the packages in .cache/node.
# Usage: install-prism.sh [VERSION]   (default below, or $PRISM_VERSION)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

PRISM_VERSION="${1:-${PRISM_VERSION:-5.16.0}}"
NODE_PREFIX="$CACHE_DIR/prism"
npm_local_install @stoplight/prism-cli "$PRISM_VERSION"
if [ "$NPM_INSTALLED" = 1 ]; then
  "$NODE_PREFIX/node_modules/.bin/prism" --version >/dev/null || die "prism does not run"
  log "ok: installed @stoplight/prism-cli $PRISM_VERSION"
else
  log "ok: @stoplight/prism-cli $PRISM_VERSION already installed"
fi
