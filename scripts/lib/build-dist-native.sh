#!/usr/bin/env bash
# The native code of the distributable packages, linked against glibc 2.17
# by zig so that it runs on Linux x86-64 from manylinux2014 on (no rustup
# target needed: the host target with a glibc suffix), in a target dir of its
# own (target/dist: it never waits on, or makes wait, the suites' builds):
#   target/dist/x86_64-unknown-linux-gnu/release/{acd,acd-sandbox}
#                           cargo zigbuild --target x86_64-unknown-linux-gnu.2.17
#   target/dist/wheels/acd_client-<v>-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
#                           maturin build --zig --compatibility manylinux2014;
#                           its acd/_ffi/libacd_ffi.so is also the Kotlin jar's
# (maturin links with a zig wrapper of its own, so the crates both builds
# share are compiled once for each; building acd-ffi only through maturin
# keeps that to acd-core and its dependencies).
# Needs scripts/lib/install-dist-tools.sh first. Used by scripts/dist, by
# scripts/lib/build-ffi.sh, by scripts/lib/sandbox.sh (`bins`: the two
# binaries only), and ahead of time by scripts/lib/prebuild.sh.
# Usage: build-dist-native.sh [all|bins]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$ROOT"

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
export CARGO_TARGET_DIR="$TARGET_DIR/dist"
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
# Keep the symbol table: uniffi-bindgen (run by maturin on the built library)
# reads its UNIFFI_META_* symbols from .symtab, and with zig as the linker
# the release profile's default strip ("debuginfo") removed the whole table
# ("No UniFFI metadata found in .../libacd_ffi.so").
export CARGO_PROFILE_RELEASE_STRIP=false
VENV_BIN="$CACHE_DIR/venv-dist/bin"
[ -x "$VENV_BIN/cargo-zigbuild" ] && [ -x "$VENV_BIN/maturin" ] ||
  die "cargo-zigbuild or maturin missing: run scripts/lib/install-dist-tools.sh"
# zig is found as `python3 -m ziglang`, through the venv's python3.
export PATH="$VENV_BIN:$PATH"
with_lock build-dist-native

log "dist: cargo zigbuild --release --target x86_64-unknown-linux-gnu.2.17 -p acd-cli -p acd-sandbox"
cargo zigbuild --release --locked --quiet --target x86_64-unknown-linux-gnu.2.17 \
  -p acd-cli -p acd-sandbox
[ "${1:-all}" = bins ] && { log "ok: glibc-2.17 binaries in ${CARGO_TARGET_DIR#"$ROOT"/}"; exit 0; }
log "dist: maturin build --zig --compatibility manylinux2014 (the Python wheel)"
# In a target dir of its own: maturin's zig linker wrapper differs from
# cargo-zigbuild's, and in one target dir each build found the other's
# host crates (proc-macros, build scripts) stale and rebuilt everything
# above them, every time either ran.
WHEELS="$CARGO_TARGET_DIR/wheels"
rm -rf "$WHEELS"
CARGO_TARGET_DIR="$TARGET_DIR/dist-wheel" \
  maturin build --release --locked --quiet --zig --compatibility manylinux2014 \
  -m bindings/Cargo.toml --out "$WHEELS"
log "ok: glibc-2.17 builds in ${CARGO_TARGET_DIR#"$ROOT"/}"
