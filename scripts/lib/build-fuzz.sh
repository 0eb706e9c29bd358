#!/usr/bin/env bash
# Installs cargo-fuzz (scripts/lib/install-cargo-fuzz.sh) and builds every
# fuzz target (fuzz/target, its own target dir). Used by scripts/test-fuzz and
# ahead of it by scripts/lib/prebuild.sh, so both build exactly the same
# thing; cargo's lock on fuzz/target serialises the two. On failure prints
# the build's last 40 lines.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

bash scripts/lib/install-cargo-fuzz.sh
log "build: cargo fuzz build (all targets)"
build_log="$CACHE_DIR/fuzz-build-$$.log"
mkdir -p "$CACHE_DIR"
RUSTC_BOOTSTRAP=1 cargo fuzz build --fuzz-dir fuzz >"$build_log" 2>&1 \
  || { tail -n 40 "$build_log" >&2; rm -f "$build_log"; exit 1; }
rm -f "$build_log"
