#!/usr/bin/env bash
# Builds acd-ffi in release and the workspace's uniffi bindgen
# (bindings/bindgen, in the dev profile: the same build maturin runs with
# `cargo run --bin uniffi-bindgen`), then generates the bindings sources into
# target/bindings/ (git-ignored):
#   target/release/libacd_ffi.so          the native library
#   target/bindings/python/acd_ffi.py     generated Python (+ the .so beside it)
#   target/bindings/kotlin/acd/acd_ffi.kt generated Kotlin
# Usage: build-ffi.sh python|kotlin...
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

[ "$#" -ge 1 ] || die "usage: $0 python|kotlin..."
cd "$ROOT"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$TARGET_DIR/bindings"
with_lock build-ffi

log "build: cargo build --release -p acd-ffi; cargo build --bin uniffi-bindgen"
cargo build --release --locked --quiet -p acd-ffi
# Selected by --bin from the workspace root, exactly as maturin's
# `cargo run --bin uniffi-bindgen` selects it: the same features, so one
# build serves both (`-p acd-uniffi-bindgen` resolves its dependencies'
# features apart and built a second copy: about 110 s of a cold run).
(cd "$ROOT" && cargo build --locked --quiet --bin uniffi-bindgen)
LIB="$TARGET_DIR/release/libacd_ffi.so"
# A fresh build does not copy the library up again if another build of the
# same crate (maturin's, which uses its own crate-type flags) replaced it.
[ -f "$LIB" ] || LIB="$TARGET_DIR/release/deps/libacd_ffi.so"
BINDGEN="$TARGET_DIR/debug/uniffi-bindgen"
[ -f "$LIB" ] && [ -x "$BINDGEN" ] || die "acd-ffi build produced no $LIB or $BINDGEN"

for language in "$@"; do
  rm -rf "$OUT/$language"
  mkdir -p "$OUT/$language"
  "$BINDGEN" generate --no-format --library "$LIB" --language "$language" \
    --out-dir "$OUT/$language" >/dev/null
  cp "$LIB" "$OUT/$language/"
  if [ "$language" = kotlin ]; then
    # The generated loader goes through dev.acd.NativeLibrary, which turns
    # JNA's bare "Unable to load library" on a platform the jar has no
    # library for into a typed error naming it (bindings/kotlin/.../NativeLibrary.kt).
    kt="$OUT/kotlin/acd/acd_ffi.kt"
    sed -i -E 's/Native\.register\(([A-Za-z]+)::class\.java, /dev.acd.NativeLibrary.register(\1::class.java, /' "$kt"
    [ "$(grep -c 'dev\.acd\.NativeLibrary\.register(' "$kt")" -eq 2 ] && ! grep -q 'Native\.register(' "$kt" ||
      die "$kt: expected the two Native.register calls of uniffi's loader to reroute (uniffi changed?)"
  fi
done
log "ok: generated $(joined "$@") bindings in ${OUT#"$ROOT"/}"
