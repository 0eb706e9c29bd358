#!/usr/bin/env bash
# cargo-fuzz (the libFuzzer driver of `cargo fuzz`), pinned; skipped when that
# version is already installed. Runs on stable with RUSTC_BOOTSTRAP=1: the
# sanitizer runtimes ship with the stable toolchain.
# Usage: install-cargo-fuzz.sh [VERSION]   (default below, or $CARGO_FUZZ_VERSION)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CARGO_FUZZ_VERSION="${1:-${CARGO_FUZZ_VERSION:-0.13.2}}"
installed() { cargo fuzz --version 2>/dev/null | grep -qF " $CARGO_FUZZ_VERSION"; }
if installed; then
  log "ok: cargo-fuzz $CARGO_FUZZ_VERSION already installed"
  exit 0
fi
need_cmd cargo
with_lock cargo-fuzz
if ! installed; then
  log "cargo install cargo-fuzz $CARGO_FUZZ_VERSION (about a minute)"
  cargo install cargo-fuzz --locked --version "$CARGO_FUZZ_VERSION" >"$CACHE_DIR/cargo-fuzz-install.log" 2>&1 \
    || { tail -n 20 "$CACHE_DIR/cargo-fuzz-install.log" >&2; die "cargo install cargo-fuzz failed"; }
fi
installed || die "cargo fuzz --version does not report $CARGO_FUZZ_VERSION"
log "ok: installed cargo-fuzz $CARGO_FUZZ_VERSION"
