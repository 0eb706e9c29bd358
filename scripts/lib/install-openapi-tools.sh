#!/usr/bin/env bash
# The OpenAPI tools of scripts/test-openapi, pinned, into .cache/node-openapi
# (a prefix of their own, so their peer dependencies never meet the other
# suites' packages): redocly, Spectral, Prism, openapi-typescript,
# openapi-fetch and the TypeScript compiler. Skips what is already there.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

NODE_PREFIX="$CACHE_DIR/node-openapi"
export NODE_PREFIX
TOOLS=(
  "@redocly/cli 2.77.0"
  "@stoplight/spectral-cli 6.16.3"
  "@stoplight/prism-cli 5.16.0"
  "openapi-typescript 7.13.0"
  "openapi-fetch 0.17.0"
  "typescript 5.9.3"
  "@types/node 20.19.43"
)
for tool in "${TOOLS[@]}"; do
  read -r pkg ver <<<"$tool"
  npm_local_install "$pkg" "$ver"
  if [ "$NPM_INSTALLED" = 1 ]; then log "ok: installed $pkg $ver"; fi
done
log "ok: OpenAPI tools ready in $NODE_PREFIX"
